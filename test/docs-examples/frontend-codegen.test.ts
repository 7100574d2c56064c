import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { database } from '../helpers/app.js';
import { projectRoot } from '../helpers/process.js';
import { startServer } from '../helpers/server.js';

const run = promisify(execFile);
const example = join(projectRoot, 'docs/examples/frontend-codegen');
const bin = (name: string) => join(projectRoot, 'node_modules/.bin', name);
const manifest = join(example, 'src/generated/persisted-documents.json');

// One database project is enough: both would write the same generated folder.
it.skipIf(database !== 'sqlite')(
  'the frontend codegen example generates typed documents that type-check, and a manifest the gateway runs alone',
  {
    timeout: 120_000,
  },
  async () => {
    await run(bin('graphql-codegen'), ['--config', 'codegen.ts', '--silent'], { cwd: example });
    const { stdout } = await run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: example });
    expect(stdout).toBe('');

    expect(existsSync(manifest)).toBe(true);
    const documents = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, string>;
    expect(Object.keys(documents)).toEqual([expect.stringMatching(/^sha256:[0-9a-f]{64}$/)]);
    expect(Object.values(documents)[0]).toMatch(/^query AvailablePets/);

    const server = await startServer({ PERSISTED_OPERATIONS_ONLY: manifest });
    try {
      const endpoint = `${server.url}/graphql`;
      const app = (await import(pathToFileURL(join(example, 'src/pets.ts')).href)) as {
        firstAvailablePetNames(endpoint: string): Promise<string[]>;
      };
      const names = await app.firstAvailablePetNames(endpoint);
      expect(names.length).toBeGreaterThan(0);
      // Anything outside the manifest is refused (400 under GraphQL over HTTP's media type).
      const other = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
        },
        body: JSON.stringify({ query: '{ categories { name } }' }),
      });
      expect(other.status).toBe(400);
      expect(
        ((await other.json()) as { errors: { extensions: { code: string } }[] }).errors[0]
          ?.extensions.code,
      ).toBe('PERSISTED_QUERY_ONLY');
    } finally {
      await server.stop();
    }
  },
);
