/**
 * `npm run db:migration -- <name>`: writes the next migration for every database variant.
 *
 * Each migration folder keeps a snapshot of the models it brings the database to
 * (`models.snapshot`), so the next migration is a model-to-model diff: no database, shadow
 * database or native engine is needed. Edit prisma/models.prisma, run this, review and commit the
 * new folders.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { fail, parseCommand, UsageError } from '../cli.js';
import type { DatabaseConfig } from '../config.js';
import { readSchemaFiles, variantDir, withSchemaEngine } from './migrate.js';

const SNAPSHOT = 'models.snapshot';
const providers = ['sqlite', 'postgresql'] as const;

async function latestSnapshot(migrationsDir: string): Promise<string | undefined> {
  if (!existsSync(migrationsDir)) return undefined;
  const folders = (await readdir(migrationsDir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const last = folders.at(-1);
  return last ? readFile(`${migrationsDir}/${last}/${SNAPSHOT}`, 'utf8') : undefined;
}

/**
 * A database for the engine to start with. A model-to-model diff changes nothing in it, but the
 * PostgreSQL engine wants a server to connect to: DATABASE_URL when it names one, else the local
 * default.
 */
function engineConfig(provider: DatabaseConfig['provider']): DatabaseConfig {
  if (provider === 'sqlite') return { provider, url: 'file::memory:', file: ':memory:' };
  const url = process.env.DATABASE_URL?.startsWith('postgres')
    ? process.env.DATABASE_URL
    : 'postgresql://postgres@127.0.0.1:5432/postgres';
  return { provider, url, schema: undefined, poolSize: 1, statementCacheSize: 0 };
}

const command = {
  name: 'npm run db:migration',
  synopsis: '<name>',
  help: `Writes the next migration of every database (prisma/sqlite and prisma/postgresql): the
difference between the models of the last migration and prisma/models.prisma. Edit the models,
run this, then review and commit the new folders.

  <name>       what the migration does, e.g. add_pet_birthday
  -h, --help   this text`,
  allowPositionals: true,
};

async function main() {
  const { positionals } = parseCommand(command);
  const name = positionals[0]?.replace(/[^a-z0-9_]+/gi, '_').toLowerCase();
  if (!name || positionals.length > 1) fail(command, new UsageError('give one migration name'));
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  for (const provider of providers) {
    const files = await readSchemaFiles(provider);
    const models = files.find((file) => file.path.endsWith('/models.prisma'));
    const datasource = files.filter((file) => file !== models);
    if (!models) throw new Error(`no models.prisma in ${variantDir(provider)}`);
    const migrationsDir = `${variantDir(provider)}migrations`;
    const previous = await latestSnapshot(migrationsDir);
    const from = previous
      ? {
          tag: 'schemaDatamodel' as const,
          files: [...datasource, { path: 'previous.prisma', content: previous }],
        }
      : { tag: 'empty' as const };
    const result = await withSchemaEngine(engineConfig(provider), (engine) =>
      engine.diff({
        from,
        to: { tag: 'schemaDatamodel', files },
        script: true,
        exitCode: true,
        filters: { externalTables: [], externalEnums: [] },
      }),
    );
    if (result.exitCode === 0) {
      console.log(`${provider}: models unchanged, no migration written`);
      continue;
    }
    const folder = `${migrationsDir}/${stamp}_${name}`;
    await mkdir(folder, { recursive: true });
    await writeFile(`${folder}/migration.sql`, result.stdout ?? '');
    await writeFile(`${folder}/${SNAPSHOT}`, models.content);
    console.log(`${provider}: wrote ${folder}/migration.sql`);
  }
}

await main();
