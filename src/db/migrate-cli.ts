/** `npm run db:migrate`: applies the committed migrations to the configured database. */
import { attempt, parseCommand } from '../cli.js';
import { loadConfig, loadDotEnv } from '../config.js';
import { migrate } from './migrate.js';

const command = {
  name: 'npm run db:migrate',
  synopsis: '',
  help: `Applies the committed migrations (prisma/<database>/migrations) that the database named by
DATABASE_URL (default: file:./data/petstore.db) has not had yet. The server does the same at
every start; this command is for a deployment step that migrates before the servers start.`,
};
parseCommand(command);

loadDotEnv();
const applied = await attempt(command, () => migrate(loadConfig().database));
console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date.');
// Prisma's WASM schema engine leaves a 10 s timer behind after migrating PostgreSQL: don't wait.
process.exit(0);
