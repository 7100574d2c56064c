import type { ArgType, SqlQueryable } from '@prisma/driver-adapter-utils';
import type { DatabaseConfig } from '../config.js';
import type { Prisma } from '../generated/sqlite/client.js';
import { inSpan, tracingEnabled } from '../tracing/hooks.js';

/**
 * Runs one raw SQL statement and answers its rows. Through Prisma's client a row holds Prisma's
 * values (a bigint, a `Date`); straight through the driver adapter (`statementsOn`), the adapter's
 * (an integer may come as a number or a string, a date as its ISO text): a reader takes either.
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

/**
 * Statements sent straight to a driver adapter's connection (or transaction), without a round
 * through Prisma's client, which costs several times what the statement itself does here: its
 * rows as objects of the adapter's values, its arguments sent as Prisma's client sends them, and
 * the span Prisma's instrumentation makes for a statement (docs/tracing.md).
 */
export function statementsOn(
  queryable: SqlQueryable,
  dialect: DatabaseConfig['provider'],
): RunStatement {
  return <Row>(statement: Prisma.Sql): Promise<Row[]> => {
    const sql = dialect === 'sqlite' ? statement.sql : statement.text;
    const run = async () => {
      const { values } = statement;
      const result = await queryable.queryRaw({
        sql,
        args: values.map((value) => (typeof value === 'bigint' ? String(value) : value)),
        argTypes: values.map(argType),
      });
      return result.rows.map(
        (row) =>
          Object.fromEntries(result.columnNames.map((name, index) => [name, row[index]])) as Row,
      );
    };
    if (!tracingEnabled()) return run();
    const attributes = { 'db.query.text': sql, 'db.system.name': dialect };
    return inSpan('prisma:client:db_query', attributes, run, 'client') as Promise<Row[]>;
  };
}

/** How an argument is typed for the adapter: as Prisma's client types it (a bigint as text). */
function argType(value: unknown): ArgType {
  const scalarType =
    typeof value === 'bigint'
      ? 'bigint'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'int'
          : 'float'
        : typeof value === 'string'
          ? 'string'
          : 'unknown';
  return { scalarType, arity: 'scalar' };
}
