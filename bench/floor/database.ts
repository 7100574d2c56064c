import { createSharedReads, databaseLimitMs, loadConfig, openDatabase } from './product-parts.js';

/**
 * The product's database client as the product opens it, from the same environment: the same pool
 * size and transaction limit; and the product's coalesced reads by id over it (one instance per
 * process, as in the product). The bench database is already migrated.
 */
export function openFloorDatabase(env: Record<string, string | undefined>) {
  const config = loadConfig(env);
  const database = openDatabase(config.database, {
    transactionTimeoutMs: databaseLimitMs(config.limits.requestTimeoutMs),
  });
  return { config, database, shared: createSharedReads(database.prisma) };
}
