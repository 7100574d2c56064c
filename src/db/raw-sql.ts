import type { Prisma } from '../generated/sqlite/client.js';

/**
 * Runs one raw SQL statement through Prisma's client and answers its rows, with Prisma's values
 * (an integer column as a number or a bigint, a date as a `Date` or its text: a reader takes either).
 */
export type RunStatement = <Row>(statement: Prisma.Sql) => Promise<Row[]>;

/**
 * Raw SQL for what Prisma's queries cannot express: the database's (`Database`, each statement
 * committed on its own, src/db/client.ts), or, inside a transaction, that transaction's
 * (`rawSqlIn`, src/db/transaction.ts).
 */
export interface RawSql {
  /** One statement: on its own, or in the transaction this raw SQL belongs to. */
  query: RunStatement;
}
