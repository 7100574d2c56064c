/** `npm run db:seed`: migrates the configured database and loads sample data if it is empty. */
import { loadConfig, loadDotEnv } from '../config.js';
import { openDatabase } from './client.js';
import { migrate } from './migrate.js';
import { seedSampleData } from './seed.js';

loadDotEnv();
const config = loadConfig();
await migrate(config.database);
const database = openDatabase(config.database);
try {
  const seeded = await seedSampleData(database.prisma);
  console.log(
    seeded ? 'Loaded the sample data.' : 'The database already has data; nothing loaded.',
  );
} finally {
  await database.close();
}
