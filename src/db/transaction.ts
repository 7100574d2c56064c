import type { Db } from './client.js';

export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/**
 * Runs `work` in one database transaction, within the client's transaction limits: waiting for a
 * connection and running each bounded by the request time limit (REQUEST_TIMEOUT_MS, set where
 * the client is opened: src/db/client.ts).
 */
export function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(work);
}
