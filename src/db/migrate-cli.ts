/** `npm run db:migrate`: applies the committed migrations to the configured database. */
import { loadConfig, loadDotEnv } from '../config.js';
import { migrate } from './migrate.js';

loadDotEnv();
const config = loadConfig();
const applied = await migrate(config.database);
console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date.');
// Prisma's WASM schema engine leaves a 10 s timer behind after migrating PostgreSQL: don't wait.
process.exit(0);
