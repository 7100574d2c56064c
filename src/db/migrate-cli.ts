/** `npm run db:migrate`: applies the committed migrations to the configured database. */
import { loadConfig, loadDotEnv } from '../config.js';
import { migrate } from './migrate.js';

loadDotEnv();
const config = loadConfig();
const applied = await migrate(config.database);
console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date.');
