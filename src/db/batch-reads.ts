import { Prisma } from '../generated/sqlite/client.js';

/*
 * The statement behind the stores' pages of children by parent (src/pets/store.ts,
 * src/orders/store.ts): what per-request loaders batch a level of a connection into.
 */

/** A page of a list ordered by id, after a cursor's id: at most `take` rows (a parent). */
export interface PageWindow {
  take: number;
  afterId?: bigint | undefined;
}

/**
 * SQLite hands the INTEGER columns of a raw statement to JavaScript as doubles, which round ids
 * above 2^53: int64 columns are read as text, exact on both databases, and turned into bigints.
 */
const exactly = (column: string) => Prisma.raw(`CAST("page"."${column}" AS TEXT) AS "${column}"`);

/**
 * One page of rows of `table` for each parent, in one statement: ordered by id, after the page's
 * cursor, at most `page.take` a parent. Prisma's nested `take` would read every child of every
 * parent and cut the pages in memory, so this is SQL (the same on SQLite and PostgreSQL).
 */
export function pagesByParent(
  table: 'Pet' | 'Order',
  columns: readonly string[],
  parentColumn: 'categoryId' | 'petId',
  parentIds: readonly bigint[],
  page: PageWindow,
  status?: string,
) {
  const conditions = [
    Prisma.sql`${Prisma.raw(`"${parentColumn}"`)} IN (${Prisma.join([...parentIds])})`,
  ];
  if (page.afterId !== undefined) conditions.push(Prisma.sql`"id" > ${page.afterId}`);
  // The cast compares PostgreSQL's enum and SQLite's text alike.
  if (status !== undefined) conditions.push(Prisma.sql`CAST("status" AS TEXT) = ${status}`);
  const selected = columns.map((column) =>
    column === 'id' || column === parentColumn ? exactly(column) : Prisma.raw(`"page"."${column}"`),
  );
  return Prisma.sql`SELECT ${Prisma.join(selected)} FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY ${Prisma.raw(`"${parentColumn}"`)} ORDER BY "id") AS "rowNumber"
    FROM ${Prisma.raw(`"${table}"`)} WHERE ${Prisma.join(conditions, ' AND ')}
  ) AS "page" WHERE "rowNumber" <= ${page.take} ORDER BY "page"."id"`;
}

/** Raw rows as `pagesByParent` reads them: int64 columns as decimal text. */
export type RawRow<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] };
