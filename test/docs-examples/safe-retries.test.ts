import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { mintToken } from '../../src/auth/tokens.js';
import { scopes } from '../../src/domain/authorization.js';
import { database } from '../helpers/app.js';
import { projectRoot } from '../helpers/process.js';
import { startServer } from '../helpers/server.js';

const run = promisify(execFile);

/** The first shell block under a heading of a document. */
function shellBlock(file: string, heading: string): string {
  const text = readFileSync(join(projectRoot, file), 'utf8');
  const section = text.split(`\n## ${heading}\n`)[1] ?? '';
  return /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
}

// The shell of a reader (bash, curl, node), on one database: the sample data's pet 1.
it.skipIf(database !== 'sqlite')(
  'docs/safe-retries.md: the retry, run as written, is answered from the record',
  { timeout: 60_000 },
  async () => {
    const script = shellBlock('docs/safe-retries.md', 'Retrying a write');
    expect(script).toContain('idempotency-key: $KEY');
    const secret = randomBytes(32).toString('hex');
    const server = await startServer({ AUTH_JWT_SECRET: secret });
    try {
      const { stdout } = await run(
        'bash',
        ['-euc', script.replaceAll('http://127.0.0.1:4000', server.url)],
        {
          cwd: projectRoot,
          env: { ...process.env, TOKEN: await mintToken(secret, { scopes }) },
        },
      );
      const answers = stdout.split(/(?=HTTP\/1\.1 \d{3} )/);
      expect(answers.map((answer) => answer.split('\r\n')[0])).toEqual([
        'HTTP/1.1 201 Created',
        'HTTP/1.1 201 Created',
      ]);
      const [first, again] = answers.map((answer) => ({
        location: /^location: (.*)\r$/im.exec(answer)?.[1],
        replayed: /^idempotent-replayed: (.*)\r$/im.exec(answer)?.[1],
        body: answer.split('\r\n\r\n')[1],
      }));
      expect(first?.replayed).toBeUndefined();
      expect(again).toEqual({ ...first, replayed: 'true' });
    } finally {
      await server.stop();
    }
  },
);
