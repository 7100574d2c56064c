import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { database, databaseAvailable } from './helpers/app.js';
import { projectRoot, runCommand, runNode, tsx } from './helpers/process.js';

const scripts = (
  JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

/**
 * The rows of docs/development.md's command table: the scripts a row names, and what its last
 * column says `--help` prints ("its own", or the tool whose help it is).
 */
function documentedCommands(): { scripts: string[]; help: string }[] {
  const text = readFileSync(join(projectRoot, 'docs/development.md'), 'utf8');
  const table = text.split('## Commands')[1]?.split('\n## ')[0] ?? '';
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `npm'))
    .map((line) => {
      const cells = line.split('|').map((cell) => cell.trim());
      const named = [...(cells[1] ?? '').matchAll(/`npm (?:run ([\w:.-]+)|(start|test|install))/g)];
      return {
        scripts: named.map((match) => (match[1] ?? match[2]) as string),
        help: cells.at(-2) ?? '',
      };
    });
}

/** What npm runs for a script, as `node` arguments: `exec node x.js` or `tsx x.ts`. */
function nodeArgs(script: string): string[] {
  const [program, ...args] = script.replace(/^exec /, '').split(' ');
  if (program === 'node') return args;
  if (program === 'tsx') return [tsx, ...args];
  throw new Error(`not a node or tsx command: ${script}`);
}

/** Every command that docs/development.md says answers its own --help: its name and what it runs. */
const commands: [string, string[]][] = documentedCommands()
  .filter((row) => row.help === 'its own')
  .flatMap((row) => row.scripts)
  .map((name) => [
    name === 'start' ? 'npm start' : `npm run ${name}`,
    nodeArgs(scripts[name] ?? ''),
  ]);

it('documents every npm script, and what its --help prints', () => {
  const documented = documentedCommands().flatMap((row) => row.scripts);
  // Lifecycle scripts run as parts of others (postinstall, prestart).
  const runnable = Object.keys(scripts).filter((name) => !/^(pre|post)/.test(name));
  expect(runnable.filter((name) => !documented.includes(name))).toEqual([]);
  expect(commands.map(([name]) => name)).toEqual(
    expect.arrayContaining(['npm start', 'npm run dev', 'npm run build', 'npm run token']),
  );
});

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
  // npm answers `npm start --help` itself: the hint puts the option after `--`.
  const helpHint = `${name} -- --help`;
  // The script's name, as npm users know it: `token: …`, `start: …`.
  const script = name.split(' ').at(-1);
  expect(answer.stderr).toBe(`${script}: Unknown option '--no-such-option' (see ${helpHint})\n`);
  expect(existsSync(untouched)).toBe(false);
});

/** `npm -s <args>` in the project, as a user types it; resolves when it exits. */
const runNpm = (args: string[]) =>
  runCommand('npm', ['-s', ...args], { DATABASE_URL: `file:${untouched}` });

it('npm start -- <unknown option> points at npm start -- --help, not at npm’s own help', async () => {
  const answer = await runNpm(['start', '--', '--no-such-option']);
  expect(answer).toMatchObject({
    code: 2,
    stdout: '',
    stderr: "start: Unknown option '--no-such-option' (see npm start -- --help)\n",
  });
  expect(existsSync(untouched)).toBe(false);
});

it('npm test hands its arguments to Vitest, which refuses an unknown one in one line', async () => {
  // What runs after the codegen and the type check, with what npm appends to it.
  const vitest = scripts.test?.split(' && ').at(-1) ?? '';
  expect(vitest).toMatch(/^node test\/vitest-cli\.js run /);
  const answer = await run([...nodeArgs(vitest), '--bogus']);
  expect(answer).toMatchObject({
    code: 2,
    stdout: '',
    stderr: 'test: Unknown option `--bogus` (see npm test -- --help)\n',
  });
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
