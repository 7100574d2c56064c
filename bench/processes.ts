import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { mintToken } from '../src/auth/tokens.js';
import { build as buildProduct, distDir } from '../src/build.js';
import { scopes } from '../src/domain/authorization.js';
import type { FromServer, ServerStats, ToServer } from './ipc.js';
import type { LoadJob, LoadResult } from './load.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Keeps the end of a child's output, to explain a crash. */
function outputTail(child: ChildProcess): () => string {
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => tail.trim();
}

function forkTs(entry: string, args: string[], execArgv: string[] = []): ChildProcess {
  return fork(here(entry), args, {
    execArgv: ['--import', 'tsx', ...execArgv],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
}

const srcDir = fileURLToPath(new URL('../src/', import.meta.url));
const buildDir = here('./results/build');

/**
 * The servers run compiled JavaScript, as `npm start` does (no TypeScript loader in the measured
 * process): the product's dist/ is rebuilt, and each bench entry is bundled into one file whose
 * imports of src/ point at dist/ instead, so the product's code runs exactly as it is served.
 */
async function compileServer(entry: string): Promise<string> {
  const outfile = join(buildDir, `${relative(here('.'), here(entry)).replace(/[/\\]/g, '-')}.mjs`);
  await esbuild.build({
    entryPoints: [here(entry)],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    plugins: [
      {
        name: 'product-from-dist',
        setup(build) {
          build.onResolve({ filter: /\/src\// }, (args) => {
            const source = resolve(dirname(args.importer), args.path);
            if (!source.startsWith(srcDir)) return undefined;
            const compiled = join(distDir, relative(srcDir, source)).replace(/\.ts$/, '.js');
            return { path: pathToFileURL(compiled).href, external: true };
          });
        },
      },
    ],
  });
  return outfile;
}

/**
 * The Node flags `npm start` runs the product with (package.json's `start` script): every server
 * of the bench runs with them, the floors and the baseline too, so that they differ only in code.
 */
const startFlags: string[] = (
  /exec node (.*?) ?dist\/server\.js/.exec(
    JSON.parse(readFileSync(here('../package.json'), 'utf8')).scripts.start,
  )?.[1] ?? ''
)
  .split(' ')
  .filter(Boolean);

/**
 * A program the server's `node` runs under (valgrind, say: bench/instructions.ts), with its own
 * arguments and any Node flags the program needs added to the start's.
 */
export interface Launcher {
  command: string;
  args: string[];
  nodeFlags: string[];
}

let productBuilt: Promise<unknown> | undefined;

async function forkServer(
  entry: string,
  args: string[],
  launcher?: Launcher,
): Promise<ChildProcess> {
  productBuilt ??= buildProduct();
  await productBuilt;
  return fork(await compileServer(entry), args, {
    ...(launcher
      ? {
          execPath: launcher.command,
          execArgv: [...launcher.args, process.execPath, ...startFlags, ...launcher.nodeFlags],
        }
      : { execArgv: startFlags }),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
}

export interface ServerProcess {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  stats(): Promise<ServerStats>;
  /** Starts V8's CPU profiler in the server. */
  startProfile(): Promise<void>;
  /** Stops it and has the server write the profile to `file`. */
  writeProfile(file: string): Promise<void>;
  stop(): Promise<void>;
}

type Reply = FromServer & { type: 'stats' | 'done' };

async function startServer(
  name: string,
  entry: string,
  args: string[],
  launcher?: Launcher,
): Promise<ServerProcess> {
  const child = await forkServer(entry, args, launcher);
  const tail = outputTail(child);
  // Questions asked and not answered yet: a server that dies fails them rather than leaving the
  // run waiting forever.
  const pending = new Map<number, { resolve(reply: Reply): void; reject(error: Error): void }>();
  let nextId = 0;
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (message: FromServer) => {
      if (message.type === 'ready') resolve(message.port);
      else pending.get(message.id)?.resolve(message);
    });
    child.once('exit', (code) => {
      exited = true;
      const error = new Error(`the ${name} server exited (code ${code}):\n${tail()}`);
      reject(error);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    });
  });

  const ask = (question: (id: number) => ToServer) =>
    new Promise<Reply>((resolve, reject) => {
      if (exited) return reject(new Error(`the ${name} server is not running:\n${tail()}`));
      const id = nextId++;
      pending.set(id, {
        resolve: (reply) => {
          pending.delete(id);
          resolve(reply);
        },
        reject,
      });
      child.send(question(id));
    });
  const done = async (reply: Promise<Reply>) => {
    const answer = await reply;
    if (answer.type === 'done' && answer.error) throw new Error(`${name}: ${answer.error}`);
  };

  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    stats: async () => {
      const reply = await ask((id) => ({ type: 'stats', id }));
      if (reply.type !== 'stats') throw new Error(`the ${name} server answered ${reply.type}`);
      const { statements, rss, cpuMicros } = reply;
      return { statements, rss, cpuMicros };
    },
    startProfile: () => done(ask((id) => ({ type: 'startProfile', id }))),
    writeProfile: (file) => done(ask((id) => ({ type: 'writeProfile', id, file }))),
    stop: async () => {
      if (exited) return;
      child.send({ type: 'stop' } satisfies ToServer);
      const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exitedPromise;
      clearTimeout(timeout);
    },
  };
}

/**
 * The product's environment in a run: the bench database, the run's token secret, and what the
 * bench measures without (the rate limits, info logs, the response cache).
 */
export function productEnvironment(databaseUrl: string, secret: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    SEED: 'false',
    NODE_ENV: 'production',
    AUTH_JWT_SECRET: secret,
    // One load generator is one client, far over any per-client budget.
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_COST_PER_MINUTE: '0',
    // The subscribers scenarios are one client with thousands of connections.
    MAX_SUBSCRIPTIONS_PER_CLIENT: '100000',
    MAX_SOCKETS_PER_CLIENT: '100000',
    MAX_CONNECTIONS_PER_CLIENT: '100000',
    // Warnings and errors only: the run measures the gateway, not log shipping.
    LOG_LEVEL: 'warn',
    // The headline scenarios measure uncached work; the `-cached` ones use a second product. With
    // the response cache off, answers note what they hold only for a CDN's tags: off too, as a
    // deployment without either runs (src/edge-cache/; a deployment with the cache on notes anyway).
    RESPONSE_CACHE_TTL_MS: '0',
    EDGE_CACHE_TAGS: 'false',
  };
}

/** A token with every scope (the product's own minting), for the operations that need one. */
export function benchToken(secret: string): Promise<string> {
  return mintToken(secret, { scopes, subject: 'bench', expiresIn: 2 * 3600 });
}

/** The product: the real app on the bench database, with the given environment. */
export function startProduct(env: Record<string, string>, launcher?: Launcher) {
  return startServer('product', './product/server.ts', [JSON.stringify(env)], launcher);
}

/** Which framework floor: bare Yoga on node:http, or bare Hono on @hono/node-server. */
export type FloorKind = 'graphql' | 'rest';

/**
 * A framework floor (bench/floor/) on the bench database, configured by the product's environment
 * (the same database URL and pool size).
 */
export function startFloor(kind: FloorKind, env: Record<string, string>, launcher?: Launcher) {
  return startServer(`${kind} floor`, `./floor/${kind}-server.ts`, [JSON.stringify(env)], launcher);
}

/** The fan-out floor (bench/floor/sse-server.ts): bare node:http writing SSE events. */
export function startSseFloor() {
  return startServer('SSE floor', './floor/sse-server.ts', []);
}

/** The baseline on the same database (a DATABASE_URL: SQLite file or PostgreSQL schema). */
export function startBaseline(databaseUrl: string, launcher?: Launcher) {
  return startServer('baseline', './baseline/server.ts', [databaseUrl], launcher);
}

export interface LoadGenerator {
  run(job: LoadJob): Promise<LoadResult>;
  stop(): void;
}

/** autocannon in a process of its own; runs one job at a time. */
export function startLoadGenerator(): LoadGenerator {
  const child = forkTs('./load.ts', []);
  const tail = outputTail(child);
  return {
    run: (job) =>
      new Promise((resolve, reject) => {
        const onExit = (code: number | null) =>
          reject(new Error(`the load generator exited (code ${code}):\n${tail()}`));
        child.once('exit', onExit);
        child.once(
          'message',
          (reply: { ok: true; result: LoadResult } | { ok: false; error: string }) => {
            child.off('exit', onExit);
            if (reply.ok) resolve(reply.result);
            else reject(new Error(`load run failed: ${reply.error}`));
          },
        );
        child.send(job);
      }),
    stop: () => {
      child.disconnect();
    },
  };
}
