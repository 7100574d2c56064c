import type { Prisma } from '../generated/sqlite/client.js';

/**
 * Runs one raw SQL statement and answers its rows. Through the driver adapter (`RawSql` of the
 * database) a row holds the adapter's values (an integer may come as a string, a date as its ISO
 * text); through Prisma's client, Prisma's (a bigint, a `Date`): a reader takes either.
 */
export type RunStatement = <Row>(statement: Prisma.Sql) => Promise<Row[]>;

/**
 * Raw SQL for writes that Prisma's client cannot express: the database's (`Database`, straight
 * through the driver adapter, src/db/client.ts), or, inside a request that runs whole in one
 * transaction (src/idempotency/), that transaction's (`rawSqlJoining`).
 */
export interface RawSql {
  /** One statement on its own (it commits whole or not at all). */
  query: RunStatement;
  /** `work`'s statements in one transaction, bounded as Prisma's interactive ones are. */
  transaction<T>(work: (query: RunStatement) => Promise<T>): Promise<T>;
}

/** The raw SQL of an open transaction: its statements, and any transaction asked for, join it. */
export function rawSqlJoining(query: RunStatement): RawSql {
  return { query, transaction: (work) => work(query) };
}
