import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { database, databaseAvailable } from './helpers/app.js';
import { runNode, tsx } from './helpers/process.js';

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

const run = (args: string[], databaseUrl = `file:${untouched}`) =>
  runNode(args, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' });

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

describe.skipIf(database !== 'postgresql' || !databaseAvailable)(
  'a PostgreSQL that is not there',
  () => {
    const server = new URL(inject('postgresUrl') ?? 'postgresql://localhost');
    const missing = new URL(server);
    missing.pathname = `/petstore_missing_${process.pid}`;
    const closed = new URL(server);
    closed.port = '1';

    it.each([
      [
        'a database that does not exist',
        missing,
        /^.*names the database "petstore_missing_\d+", which PostgreSQL at .* does not have: create it \(createdb /,
      ],
      [
        'a server that refuses connections',
        closed,
        /^.*PostgreSQL at [^ ]+:1 cannot be reached \(ECONNREFUSED\): start it/,
      ],
    ])(
      '%s is one line saying what to do, from npm start and db:migrate',
      async (_case, url, line) => {
        for (const args of [['dist/server.js'], [tsx, 'src/db/migrate-cli.ts']]) {
          const answer = await run(args, url.toString());
          expect(answer.code).toBe(1);
          expect(answer.stderr.trim().split('\n')).toHaveLength(1);
          expect(answer.stderr).toMatch(line);
        }
      },
    );
  },
);
