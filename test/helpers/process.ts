import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { inject } from 'vitest';
import { database } from './app.js';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The Node flags `npm start` runs the server with (package.json's `start` script), so that a test
 * starting `dist/server.js` runs it as `npm start` does.
 */
export const serverNodeFlags: string[] = (
  /exec node (.*?) ?dist\/server\.js/.exec(
    JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')).scripts.start,
  )?.[1] ?? ''
)
  .split(' ')
  .filter(Boolean);

/** tsx's command line, run with this Node: `node <tsx> src/…` is what the npm scripts run. */
export const tsx = createRequire(import.meta.url).resolve('tsx/cli');

/**
 * A fresh database of the test project's kind for a child process (server, CLI): a SQLite file
 * or a PostgreSQL schema, created by whoever migrates it first. `drop()` deletes it.
 */
export function childDatabase() {
  const name = `srv_${randomBytes(6).toString('hex')}`;
  if (database === 'sqlite') {
    const file = join(tmpdir(), `petstore-${name}.db`);
    return {
      url: `file:${file}`,
      drop: () => Promise.all(['', '-wal', '-shm'].map((end) => rm(file + end, { force: true }))),
    };
  }
  const postgresUrl = inject('postgresUrl') ?? '';
  return {
    url: `${postgresUrl}${postgresUrl.includes('?') ? '&' : '?'}schema=${name}`,
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await client.end();
    },
  };
}

/**
 * Runs `node <args>` in the project with extra environment variables; resolves when it exits. A
 * process still running after `timeoutMs` is killed (its code is then null).
 */
export function runNode(
  args: string[],
  env: Record<string, string> = {},
  options: { timeoutMs?: number; cwd?: string } = {},
) {
  return runCommand(process.execPath, args, env, options);
}

/** Runs `command <args>` (in the project, or in `cwd`), as `runNode` runs node. */
export function runCommand(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  { timeoutMs, cwd = projectRoot }: { timeoutMs?: number; cwd?: string } = {},
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env } });
    const killer = timeoutMs ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    // 'close', not 'exit': the process may exit before its output has been read.
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}
