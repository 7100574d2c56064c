import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { projectRoot, tsx } from './helpers/process.js';

/** Every command-line entry point: the npm script's name and what it runs. */
const commands: [string, string[]][] = [
  ['npm start', ['dist/server.js']],
  ['npm run db:migrate', [tsx, 'src/db/migrate-cli.ts']],
  ['npm run db:seed', [tsx, 'src/db/seed-cli.ts']],
  ['npm run db:migration', [tsx, 'src/db/new-migration-cli.ts']],
  ['npm run schema:print', [tsx, 'src/graphql/schema/print-cli.ts']],
  ['npm run openapi:print', [tsx, 'src/rest/print-cli.ts']],
  ['npm run token', [tsx, 'src/auth/token-cli.ts']],
];

/** A database file no command may create when it only explains itself. */
const untouched = join(tmpdir(), `petstore-cli-${process.pid}.db`);

function run(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: `file:${untouched}`, LOG_LEVEL: 'info' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

it.each(commands)(
  '%s answers --help and -h with its usage, and touches nothing',
  async (name, args) => {
    const [long, short] = await Promise.all([run([...args, '--help']), run([...args, '-h'])]);
    for (const answer of [long, short]) {
      expect(answer.code).toBe(0);
      expect(answer.stdout).toMatch(
        new RegExp(`^Usage: ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
      expect(answer.stderr).toBe('');
    }
    expect(long.stdout).toBe(short.stdout);
    expect(existsSync(untouched)).toBe(false);
  },
);

it.each(commands)('%s refuses an unknown option in one line, exit code 2', async (name, args) => {
  const answer = await run([...args, '--no-such-option']);
  expect(answer.code).toBe(2);
  expect(answer.stdout).toBe('');
  const helpHint = name.startsWith('npm run') ? `${name} -- --help` : `${name} --help`;
  // The script's name, as npm users know it: `token: …`, `start: …`.
  const script = name.split(' ').at(-1);
  expect(answer.stderr).toBe(`${script}: Unknown option '--no-such-option' (see ${helpHint})\n`);
  expect(existsSync(untouched)).toBe(false);
});
