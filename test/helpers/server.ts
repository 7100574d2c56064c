import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { childDatabase, projectRoot, serverNodeFlags } from './process.js';

/** One JSON line of the server's log. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface ServerProcess {
  /** `http://127.0.0.1:<port>`, read from the server's "serving" log line. */
  readonly url: string;
  readonly child: ChildProcess;
  /** Every log line so far, in order. */
  readonly logs: LogLine[];
  waitForLog(predicate: (line: LogLine) => boolean): Promise<LogLine>;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** Stops the server (SIGTERM, then SIGKILL if it hangs) and deletes its database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /**
   * `node` (default) runs what `npm start` runs (`node dist/server.js`, the compiled server that
   * the test run builds first) directly;
   * `npm` runs `npm start` itself, as a supervisor would, so `child` is the npm process.
   */
  via?: 'node' | 'npm';
  /** Runs it under `prlimit --nofile=<n>:<n>`: the open-file limit a service manager may set. */
  openFileLimit?: number;
}

/**
 * Starts the real server on a free port and a fresh database, and resolves once it listens.
 * Extra environment variables override the defaults.
 */
export async function startServer(
  env: Record<string, string> = {},
  { via = 'node', openFileLimit }: StartOptions = {},
): Promise<ServerProcess> {
  const db = childDatabase();
  const [program, programArgs]: [string, string[]] =
    via === 'npm'
      ? ['npm', ['start', '--silent']]
      : [process.execPath, [...serverNodeFlags, 'dist/server.js']];
  // prlimit runs the program in its own process (exec), so `child` is still the server.
  const [command, args]: [string, string[]] = openFileLimit
    ? ['prlimit', [`--nofile=${openFileLimit}:${openFileLimit}`, '--', program, ...programArgs]]
    : [program, programArgs];
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_COST_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  let output = '';
  const waiters = new Set<{
    predicate: (line: LogLine) => boolean;
    resolve(line: LogLine): void;
  }>();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

  createInterface({ input: child.stdout }).on('line', (text) => {
    output += `${text}\n`;
    let line: LogLine;
    try {
      line = JSON.parse(text);
    } catch {
      return;
    }
    logs.push(line);
    for (const waiter of waiters) {
      if (waiter.predicate(line)) {
        waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });

  const waitForLog = (predicate: (line: LogLine) => boolean) => {
    const seen = logs.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise<LogLine>((resolve, reject) => {
      waiters.add({ predicate, resolve });
      exited.then((code) => reject(new Error(`the server exited (${code}):\n${output}`)));
    });
  };

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    }
    await db.drop();
  };

  try {
    const serving = await waitForLog((line) => typeof line.url === 'string');
    return { url: serving.url as string, child, logs, waitForLog, exited, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
