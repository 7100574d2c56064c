import type { Db } from './client.js';
import type { RawSql } from './raw-sql.js';

/** A client inside an interactive transaction: the same queries, no `$connect`. */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** A client the domain queries through: the database's, or a transaction's it joins. */
export type Queries = Db | Tx;

/** The raw SQL of a transaction's client: every statement joins that transaction. */
export function rawSqlIn(tx: Tx): RawSql {
  return { query: (statement) => tx.$queryRaw(statement) };
}

/**
 * The one way to run statements together: `work` in one of Prisma's interactive transactions,
 * within the client's transaction limits (waiting for a connection and running each bounded by the
 * request time limit, REQUEST_TIMEOUT_MS and one tick of it, set where the client is opened:
 * src/db/client.ts; past either, Prisma rolls it back with P2028). Its raw SQL is `rawSqlIn(tx)`.
 *
 * Handed a transaction's client (a request that runs whole in one transaction, so that its
 * response is recorded with its write: src/idempotency/), the work joins that transaction as it
 * is. Prisma would open a savepoint for a `$transaction` there, two more statements that nothing
 * needs: a failure anywhere rolls the whole request back.
 */
export function inTransaction<T>(db: Queries, work: (tx: Tx) => Promise<T>): Promise<T> {
  // A transaction's client has no `$connect` (Prisma leaves it out of the client it hands over).
  const client = db as Partial<Db>;
  return typeof client.$connect === 'function' ? (db as Db).$transaction(work) : work(db);
}
