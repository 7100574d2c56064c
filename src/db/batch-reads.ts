import type { Category, InventoryItem, Order, Pet } from '../generated/sqlite/client.js';
import { Prisma } from '../generated/sqlite/client.js';
import type { Tx } from './transaction.js';

/** A page of a list ordered by id, after a cursor's id: at most `take` rows (a parent). */
export interface PageWindow {
  take: number;
  afterId?: bigint | undefined;
}

/**
 * Reads of many rows by key in one statement each: what per-request loaders batch into. Rows come
 * back in no particular order, and keys that name no row are simply absent.
 */

export function petsByIds(db: Tx, ids: readonly bigint[]): Promise<Pet[]> {
  return db.pet.findMany({ where: { id: { in: [...ids] } } });
}

export function categoriesByIds(db: Tx, ids: readonly bigint[]): Promise<Category[]> {
  return db.category.findMany({ where: { id: { in: [...ids] } } });
}

export function inventoryByPetIds(db: Tx, petIds: readonly bigint[]): Promise<InventoryItem[]> {
  return db.inventoryItem.findMany({ where: { petId: { in: [...petIds] } } });
}

export function ordersByIds(db: Tx, ids: readonly bigint[]): Promise<Order[]> {
  return db.order.findMany({ where: { id: { in: [...ids] } } });
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
function pagesByParent(
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
type RawRow<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] };

export async function petPagesByCategory(
  db: Tx,
  categoryIds: readonly bigint[],
  status: Pet['status'] | undefined,
  page: PageWindow,
): Promise<Pet[]> {
  const rows = await db.$queryRaw<RawRow<Pet>[]>(
    pagesByParent(
      'Pet',
      ['id', 'name', 'categoryId', 'status', 'version'],
      'categoryId',
      categoryIds,
      page,
      status,
    ),
  );
  return rows.map(({ id, name, categoryId, status, version }) => ({
    id: BigInt(id),
    name,
    categoryId: BigInt(categoryId),
    status,
    version: Number(version),
  }));
}

export async function orderPagesByPet(
  db: Tx,
  petIds: readonly bigint[],
  page: PageWindow,
): Promise<Order[]> {
  const rows = await db.$queryRaw<RawRow<Order>[]>(
    pagesByParent(
      'Order',
      ['id', 'petId', 'quantity', 'shipDate', 'complete', 'version'],
      'petId',
      petIds,
      page,
    ),
  );
  return rows.map(({ id, petId, quantity, shipDate, complete, version }) => ({
    id: BigInt(id),
    petId: BigInt(petId),
    quantity,
    shipDate,
    complete: Boolean(complete),
    version: Number(version),
  }));
}

/** How many pets each category has (with `status`, of that status): one statement. */
export async function petCountsByCategory(
  db: Tx,
  categoryIds: readonly bigint[],
  status: Pet['status'] | undefined,
): Promise<Map<bigint, number>> {
  const groups = await db.pet.groupBy({
    by: ['categoryId'],
    where: { categoryId: { in: [...categoryIds] }, status },
    _count: { _all: true },
  });
  return new Map(groups.map((group) => [group.categoryId, group._count._all]));
}

/** How many orders each pet has: one statement. */
export async function orderCountsByPet(
  db: Tx,
  petIds: readonly bigint[],
): Promise<Map<bigint, number>> {
  const groups = await db.order.groupBy({
    by: ['petId'],
    where: { petId: { in: [...petIds] } },
    _count: { _all: true },
  });
  return new Map(groups.map((group) => [group.petId, group._count._all]));
}
