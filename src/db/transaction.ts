import type { SqlQueryable } from '@prisma/driver-adapter-utils';
// `Db` of src/db/client.ts, which imports this file.
import type { PrismaClient as Db } from '../generated/sqlite/client.js';
import { type RawSql, statementsOn } from './raw-sql.js';

/** A client inside an interactive transaction: the same queries, no `$connect`. */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** A client the domain queries through: the database's, or a transaction's it joins. */
export type Queries = Db | Tx;

/**
 * SQLite's clients, each with the adapter transaction open on its one connection
 * (src/db/adapter.ts): `oneConnection`, called by src/db/client.ts.
 */
const openTransactionOf = new WeakMap<Db, () => SqlQueryable | undefined>();

/** The raw SQL of the transactions `inTransaction` began on SQLite, by their client. */
const straightRawSql = new WeakMap<Tx, RawSql>();

/** Declares `db` a client over one connection whose open transaction `open` answers (SQLite). */
export function oneConnection(db: Db, open: () => SqlQueryable | undefined): void {
  openTransactionOf.set(db, open);
}

/** The raw SQL of a transaction's client: every statement joins that transaction. */
export function rawSqlIn(tx: Tx): RawSql {
  return straightRawSql.get(tx) ?? { query: (statement) => tx.$queryRaw(statement) };
}

/**
 * The one way to run statements together: `work` in one of Prisma's interactive transactions,
 * within the client's transaction limits (waiting for a connection and running each bounded by the
 * request time limit, REQUEST_TIMEOUT_MS and one tick of it, set where the client is opened:
 * src/db/client.ts; past either, Prisma rolls it back with P2028). Its raw SQL is `rawSqlIn(tx)`.
 *
 * On SQLite that raw SQL goes straight to the adapter's transaction, without a round through
 * Prisma's client. Sound because the connection is one and taken in turns: from its BEGIN to its
 * commit or rollback the transaction Prisma began holds the turn, so when Prisma calls `work` it
 * is the one open transaction, and no statement of another runs in it; once it has ended (Prisma
 * rolled it back at its time limit while `work` went on) it refuses the statements still sent.
 *
 * Handed a transaction's client (a request that runs whole in one transaction, so that its
 * response is recorded with its write: src/idempotency/), the work joins that transaction as it
 * is. Prisma would open a savepoint for a `$transaction` there, two more statements that nothing
 * needs: a failure anywhere rolls the whole request back.
 */
export function inTransaction<T>(db: Queries, work: (tx: Tx) => Promise<T>): Promise<T> {
  // A transaction's client has no `$connect` (Prisma leaves it out of the client it hands over).
  const client = db as Partial<Db>;
  if (typeof client.$connect !== 'function') return work(db);
  const openTransaction = openTransactionOf.get(db as Db);
  if (!openTransaction) return (db as Db).$transaction(work);
  return (db as Db).$transaction((tx) => {
    const open = openTransaction();
    if (open) straightRawSql.set(tx, { query: statementsOn(open, 'sqlite') });
    return work(tx);
  });
}
