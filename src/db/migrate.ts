import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
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

let engineModule: Promise<typeof import('@prisma/schema-engine-wasm')> | undefined;

/**
 * Prisma's schema engine compiled to WebAssembly. Its package is a bundler build, so the module is
 * instantiated by hand here; this is what lets migrations run without downloading a native binary.
 */
function loadEngineModule(): Promise<typeof import('@prisma/schema-engine-wasm')> {
  engineModule ??= (async () => {
    const bindings = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const wasmUrl = new URL(
      'schema_engine_bg.wasm',
      import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg'),
    );
    const { instance } = await WebAssembly.instantiate(await readFile(wasmUrl), {
      './schema_engine_bg.js': bindings,
    });
    const exports = instance.exports as WebAssembly.Exports & { __wbindgen_start(): void };
    bindings.__wbg_set_wasm(exports);
    exports.__wbindgen_start();
    return bindings as unknown as typeof import('@prisma/schema-engine-wasm');
  })();
  return engineModule;
}

/** Runs `work` with a schema engine connected to the configured database, then disconnects. */
export async function withSchemaEngine<T>(
  config: DatabaseConfig,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadEngineModule();
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

/** Applies every committed migration the database has not seen yet; returns their names. */
export async function migrate(config: DatabaseConfig): Promise<string[]> {
  if (config.provider === 'postgresql' && config.schema) await createPostgresSchema(config);
  const migrationsList = await readMigrations(config.provider);
  const { appliedMigrationNames } = await withSchemaEngine(config, (engine) =>
    engine.applyMigrations({ migrationsList, filters: { externalTables: [], externalEnums: [] } }),
  );
  return appliedMigrationNames;
}

async function createPostgresSchema(config: DatabaseConfig & { provider: 'postgresql' }) {
  const url = new URL(config.url);
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${config.schema}"`);
  } finally {
    await client.end();
  }
}
