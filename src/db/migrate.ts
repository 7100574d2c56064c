import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';
import pg from 'pg';
import { ConfigError, type DatabaseConfig } from '../config.js';
import { createAdapterFactory } from './client.js';

const prismaDir = fileURLToPath(new URL('../../prisma/', import.meta.url));

export function variantDir(provider: DatabaseConfig['provider']): string {
  return `${prismaDir}${provider}/`;
}

/** The Prisma schema files of a variant (its datasource plus the shared models). */
export async function readSchemaFiles(
  provider: DatabaseConfig['provider'],
): Promise<{ path: string; content: string }[]> {
  const dir = variantDir(provider);
  const names = (await readdir(dir)).filter((name) => name.endsWith('.prisma')).sort();
  return Promise.all(
    names.map(async (name) => ({
      path: `${dir}${name}`,
      content: await readFile(`${dir}${name}`, 'utf8'),
    })),
  );
}

export async function readMigrations(provider: DatabaseConfig['provider']): Promise<MigrationList> {
  const baseDir = `${variantDir(provider)}migrations`;
  const lockPath = `${baseDir}/migration_lock.toml`;
  const names = existsSync(baseDir)
    ? (await readdir(baseDir, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir,
    lockfile: {
      path: 'migration_lock.toml',
      content: existsSync(lockPath) ? await readFile(lockPath, 'utf8') : null,
    },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      names.map(async (name) => ({
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: {
            tag: 'ok' as const,
            value: await readFile(`${baseDir}/${name}/migration.sql`, 'utf8'),
          },
        },
      })),
    ),
  };
}

type EngineModule = typeof import('@prisma/schema-engine-wasm');

interface LoadedEngine {
  readonly module: EngineModule;
  /** Lets go of the WebAssembly instance, its memory and the timers it left behind. */
  release(): void;
}

let loaded: Promise<LoadedEngine> | undefined;
let users = 0;

/**
 * Prisma's schema engine compiled to WebAssembly. Its package is a bundler build, so the module is
 * instantiated by hand here; this is what lets migrations run without downloading a native binary.
 * Its timers go through `timers`, so that releasing the engine can clear them.
 */
async function instantiateEngine(): Promise<LoadedEngine> {
  const bindings = await import('@prisma/schema-engine-wasm/schema_engine_bg');
  const wasmUrl = new URL(
    'schema_engine_bg.wasm',
    import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg'),
  );
  const timers = new Set<NodeJS.Timeout>();
  const imports: WebAssembly.ModuleImports = { ...bindings } as WebAssembly.ModuleImports;
  for (const name of Object.keys(bindings)) {
    if (!name.startsWith('__wbg_setTimeout_')) continue;
    imports[name] = (callback: () => void, ms: number) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        callback();
      }, ms >>> 0);
      timers.add(timer);
      return timer;
    };
  }
  const { instance } = await WebAssembly.instantiate(await readFile(wasmUrl), {
    './schema_engine_bg.js': imports,
  });
  const exports = instance.exports as WebAssembly.Exports & {
    memory: WebAssembly.Memory;
    __wbindgen_start(): void;
  };
  bindings.__wbg_set_wasm(exports);
  exports.__wbindgen_start();
  return {
    module: bindings as unknown as EngineModule,
    release() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // The bindings module lives as long as the process and caches views of the engine's memory;
      // growing the memory detaches the buffer those views hold, so the memory can be collected.
      exports.memory.grow(0);
      bindings.__wbg_set_wasm(undefined as never);
    },
  };
}

/**
 * Runs `use` with the schema engine loaded. The engine (about 30 MB resident once it has run) is
 * needed only while migrating: when the last user is done it is released, never kept for serving.
 */
async function usingEngine<T>(use: (module: EngineModule) => Promise<T>): Promise<T> {
  users++;
  try {
    loaded ??= instantiateEngine();
    return await use((await loaded).module);
  } finally {
    users--;
    if (users === 0 && loaded) {
      const engine = loaded;
      loaded = undefined;
      await engine.then((it) => it.release()).catch(() => {});
    }
  }
}

/** Runs `work` with a schema engine connected to the configured database, then disconnects. */
export async function withSchemaEngine<T>(
  config: DatabaseConfig,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  return usingEngine((module) => runEngine(module, config, work));
}

async function runEngine<T>(
  { SchemaEngine }: EngineModule,
  config: DatabaseConfig,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const files = await readSchemaFiles(config.provider);
  const { factory, close } = createAdapterFactory(config);
  // The engine never disposes the connections it opens; an open SQLite handle would keep the
  // database locked, so they are recorded and disposed here.
  const connections: SqlDriverAdapter[] = [];
  const recordingFactory: SqlMigrationAwareDriverAdapterFactory = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const connection = await factory.connect();
      connections.push(connection);
      return connection;
    },
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
  const engine = await SchemaEngine.new(
    { datamodels: files.map((file) => [file.path, file.content]) },
    () => {},
    bindMigrationAwareSqlAdapterFactory(recordingFactory),
  );
  try {
    return await work(engine);
  } finally {
    engine.free();
    await Promise.all(connections.map((connection) => connection.dispose()));
    await close();
  }
}

/**
 * Applies every committed migration the database has not seen yet; returns their names. The
 * compiled server runs the schema engine in a worker thread, so that nothing of it (its
 * WebAssembly memory never shrinks while it lives, and V8 keeps its compiled code: about 50 MB)
 * stays in the serving process: the worker's heap goes with it. From the TypeScript sources (the
 * tests, `npm run dev`) it runs in this thread.
 */
export async function migrate(config: DatabaseConfig): Promise<string[]> {
  if (!import.meta.url.endsWith('.js')) return applyMigrations(config);
  const worker = new Worker(new URL('./migrate-worker.js', import.meta.url), {
    workerData: config,
  });
  try {
    const [answer] = (await once(worker, 'message')) as [MigrationOutcome];
    if ('applied' in answer) return answer.applied;
    throw answer.error.name === 'ConfigError'
      ? new ConfigError(answer.error.message)
      : Object.assign(new Error(answer.error.message), { name: answer.error.name });
  } finally {
    await worker.terminate();
  }
}

/** What the migration worker answers (src/db/migrate-worker.ts). */
export type MigrationOutcome = { applied: string[] } | { error: { name: string; message: string } };

/** `migrate`'s work, in the thread that calls it. */
export async function applyMigrations(config: DatabaseConfig): Promise<string[]> {
  if (config.provider === 'postgresql') await preparePostgres(config);
  const migrationsList = await readMigrations(config.provider);
  const { appliedMigrationNames } = await withSchemaEngine(config, (engine) =>
    engine.applyMigrations({ migrationsList, filters: { externalTables: [], externalEnums: [] } }),
  );
  return appliedMigrationNames;
}

/**
 * Connects once before the schema engine does, so that a database that is missing or cannot be
 * reached is one sentence saying what to do (the engine would end in a WASM stack trace), and
 * creates the configured schema. A missing database is not created: an operator chooses where
 * databases live and who owns them, and a typing mistake in DATABASE_URL must not go unnoticed.
 */
async function preparePostgres(config: DatabaseConfig & { provider: 'postgresql' }) {
  const url = new URL(config.url);
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new ConfigError(unreachableMessage(url, error));
  }
  try {
    if (config.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${config.schema}"`);
  } finally {
    await client.end();
  }
}

function unreachableMessage(url: URL, error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const database = decodeURIComponent(url.pathname.slice(1)) || 'postgres';
  const server = `PostgreSQL at ${url.hostname}:${url.port || 5432}`;
  if (code === '3D000') {
    return `DATABASE_URL names the database "${database}", which ${server} does not have: create it (createdb ${database}, or CREATE DATABASE "${database}";), or name another one`;
  }
  if (code === '28P01' || code === '28000') {
    return `${server} refused the user "${decodeURIComponent(url.username)}" (${message}): check the user and password in DATABASE_URL`;
  }
  return `${server} cannot be reached (${code ?? message}): start it, or fix the host and port in DATABASE_URL`;
}
