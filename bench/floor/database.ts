import { type Database, loadConfig, openDatabase } from './product-parts.js';

/**
 * The product's database client as the product opens it, from the same environment (JSON): the
 * same pool size and transaction limit. The bench database is already migrated.
 */
export function openFloorDatabase(env: Record<string, string>) {
  const config = loadConfig(env);
  const database: Database = openDatabase(config.database, {
    transactionTimeoutMs: config.limits.requestTimeoutMs,
  });
  return { config, database };
}
