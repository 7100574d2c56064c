/**
 * `npm run db:seed [-- --pets N]`: migrates the configured database, loads the sample data if it
 * is empty, and with `--pets N` tops the pets up to N (batched, with a progress bar on stderr).
 */
import { attempt, fail, parseCommand, UsageError } from '../cli.js';
import { loadConfig, loadDotEnv } from '../config.js';
import { BULK_TRANSACTION_MS, openDatabase } from './client.js';
import { migrate } from './migrate.js';
import { createProgressBar } from './progress-bar.js';
import { seedSampleData } from './seed.js';
import { seedPets } from './seed-bulk.js';

const maxPets = 10_000_000;

const command = {
  name: 'npm run db:seed',
  synopsis: '[--pets N]',
  help: `Migrates the database named by DATABASE_URL (default: file:./data/petstore.db), loads the
sample data when it is empty, and with --pets tops the pets up to N.

  --pets N     make the database hold N pets (1 to ${maxPets.toLocaleString('en')}), in batches
  -h, --help   this text`,
  options: { pets: { type: 'string' as const } },
};

function parsePets(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const pets = Number(value);
  if (!/^\d+$/.test(value) || pets < 1 || pets > maxPets) {
    fail(
      command,
      new UsageError(`--pets must be a whole number from 1 to ${maxPets}, not "${value}"`),
    );
  }
  return pets;
}

const { values } = parseCommand(command);
const pets = parsePets(values.pets);

loadDotEnv();
const config = await attempt(command, async () => {
  const config = loadConfig();
  await migrate(config.database);
  return config;
});
const database = openDatabase(config.database, { transactionTimeoutMs: BULK_TRANSACTION_MS });
try {
  const seeded = await seedSampleData(database.prisma);
  console.log(
    seeded ? 'Loaded the sample data.' : 'The database already has data; no sample data loaded.',
  );
  if (pets !== undefined) {
    let bar: ReturnType<typeof createProgressBar> | undefined;
    const started = performance.now();
    const added = await seedPets(database.prisma, pets, {
      onProgress: (done, toAdd) => {
        bar ??= createProgressBar(toAdd, 'pets', process.stderr, started);
        bar.update(done);
      },
    });
    bar?.finish();
    console.log(
      added > 0
        ? `Added ${added} pets; the database now holds ${pets}.`
        : `The database already holds at least ${pets} pets; none added.`,
    );
  }
} finally {
  await database.close();
}
// Prisma's WASM schema engine leaves a 10 s timer behind after migrating PostgreSQL: don't wait.
process.exit(0);
