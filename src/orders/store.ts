/*
 * The orders' table: the only code that reads or writes it (by id, pages, counts, the updates and
 * cancellations the rules' transactions run, below), and the placement of an order.
 *
 * Placing an order with as few statements as the database allows: the order is written only while
 * the pet is available and its stock covers the quantity, the stock is taken by a conditional
 * update (so concurrent orders queue on the row and never oversell), and taking the last unit
 * marks the pet sold. The inventory item's version is bumped, and the pet's when it is marked sold
 * (the item shows the pet's status; its version is bumped anyway). The caller decides what a
 * refusal means.
 *
 * Prisma cannot express a conditional write that reports what it did, so this is raw SQL (run by
 * the caller's `RunStatement`: one statement on its own, or in the write's transaction):
 * on PostgreSQL one statement (`placeOrderPostgres`), on SQLite, which has no data-modifying CTEs
 * and runs one writer at a time, several in a transaction (`placeOrderSqlite`).
 *
 * So this is the one place outside the stock's store (src/inventory/store.ts) that takes stock,
 * and outside the pets' store that marks a pet sold: on PostgreSQL the order, the stock, the pet's
 * status and the events are one statement, one round trip (its speed is a target: bench/), which
 * calling those stores would split into a round trip each.
 */
import { type PageWindow, pagesByParent, type RawRow } from '../db/batch-reads.js';
import { appendingEvents, type Writer } from '../db/change-events.js';
import type { RunStatement } from '../db/raw-sql.js';
import type { Queries, Tx } from '../db/transaction.js';
import { type Page, pageArgs } from '../domain/paging.js';
import { nextVersion, writtenOrStale } from '../domain/versions.js';
import { type Order, Prisma } from '../generated/sqlite/client.js';

/**
 * What placing an order did: the order when it was placed (and whether it took the last unit,
 * which made the pet sold); otherwise the pet's status (undefined: no such pet).
 */
export interface Placed {
  order?: Order | undefined;
  soldOut?: boolean;
  status?: string | undefined;
}

/**
 * An order row as raw SQL returns it (types differ between the drivers, and between Prisma's client
 * and the adapter). SQLite's statement reads the ids as text: its driver would hand them over as
 * doubles, rounded above 2^53.
 */
interface OrderRow {
  id: bigint | string;
  petId: bigint | string;
  quantity: bigint | number;
  shipDate: Date | string | null;
  complete: boolean | number | bigint;
  version: bigint | number;
}

/**
 * PostgreSQL: the order in one statement, with its events (`appendingEvents`): the pet row locked,
 * then the stock, the status, the order and the events in data-modifying CTEs. The events are
 * the order created, its pet's inventory updated and, when it took the last unit, the pet updated,
 * in that order. Needs no transaction (it commits whole or not at all), and joins one it is given.
 */
export async function placeOrderPostgres(
  query: RunStatement,
  petId: bigint,
  quantity: number,
  shipDate: Date | null,
  writer: Writer,
): Promise<{ result: Placed; lastEvent: bigint | undefined }> {
  // The pet row is locked first (FOR NO KEY UPDATE still lets orders reference it), so an order
  // that waited for another reads the status that one left: after the last unit, `sold`.
  const rows = await query<
    Partial<OrderRow> & { status: string; left: number | null; lastEvent: string | null }
  >(Prisma.sql`
    WITH pet AS (
      SELECT "id", "status" FROM "Pet" WHERE "id" = ${petId} FOR NO KEY UPDATE
    ), taken AS (
      UPDATE "InventoryItem" AS stock
         SET "quantity" = stock."quantity" - ${quantity}::integer, "version" = stock."version" + 1
        FROM pet
       WHERE stock."petId" = pet."id" AND pet."status" = 'available'
         AND stock."quantity" >= ${quantity}::integer
      RETURNING stock."quantity"
    ), sold AS (
      UPDATE "Pet" SET "status" = 'sold', "version" = "Pet"."version" + 1 FROM taken
       WHERE "Pet"."id" = ${petId} AND taken."quantity" = 0
      RETURNING "Pet"."id"
    ), placed AS (
      INSERT INTO "Order" ("petId", "quantity", "shipDate")
      SELECT ${petId}, ${quantity}::integer, ${shipDate?.toISOString() ?? null}::timestamp(3)
        FROM taken
      RETURNING "id", "petId", "quantity", "shipDate", "complete", "version"
    ), ${appendingEvents(
      Prisma.sql`
        SELECT 1 AS n, 'order' AS "entity", 'created' AS "kind", "id" AS "entityId", "petId" FROM placed
        UNION ALL
        SELECT 2, 'inventory', 'updated', "petId", NULL FROM placed
        UNION ALL
        SELECT 3, 'pet', 'updated', "id", NULL FROM sold`,
      writer,
    )}
    SELECT pet."status"::text AS "status", (SELECT "quantity" FROM taken) AS "left", placed.*,
           (SELECT "last" FROM appended) AS "lastEvent"
      FROM pet LEFT JOIN placed ON true`);
  const [row] = rows;
  if (!row) return { result: {}, lastEvent: undefined };
  if (row.id == null) return { result: { status: row.status }, lastEvent: undefined };
  const order = toOrder(row as OrderRow);
  const lastEvent = row.lastEvent == null ? undefined : BigInt(row.lastEvent);
  return { result: { order, soldOut: Number(row.left) === 0 }, lastEvent };
}

/** SQLite: the order, in the transaction `query` runs its statements in; its events are the caller's. */
export async function placeOrderSqlite(
  query: RunStatement,
  petId: bigint,
  quantity: number,
  shipDate: Date | null,
): Promise<Placed> {
  // One writer at a time: from its first write on, the transaction sees the latest state alone.
  const [order] = await query<OrderRow>(Prisma.sql`
    INSERT INTO "Order" ("petId", "quantity", "shipDate", "complete")
    SELECT ${petId}, ${quantity}, ${shipDate ? sqliteDateTime(shipDate) : null}, false
     WHERE EXISTS (SELECT 1 FROM "Pet" WHERE "id" = ${petId} AND "status" = 'available')
       AND EXISTS (SELECT 1 FROM "InventoryItem"
                    WHERE "petId" = ${petId} AND "quantity" >= ${quantity})
    RETURNING CAST("id" AS TEXT) AS "id", CAST("petId" AS TEXT) AS "petId", "quantity", "shipDate", "complete", "version"`);
  if (!order) {
    // Refused: the reason (only the error's code depends on it).
    const [pet] = await query<{ status: string }>(
      Prisma.sql`SELECT "status" FROM "Pet" WHERE "id" = ${petId}`,
    );
    return { status: pet?.status };
  }
  const [stock] = await query<{ quantity: bigint | number }>(Prisma.sql`
    UPDATE "InventoryItem" SET "quantity" = "quantity" - ${quantity}, "version" = "version" + 1
     WHERE "petId" = ${petId}
    RETURNING "quantity"`);
  const soldOut = Number(stock?.quantity) === 0;
  if (soldOut)
    await query(Prisma.sql`
      UPDATE "Pet" SET "status" = 'sold', "version" = "version" + 1 WHERE "id" = ${petId}`);
  return { order: toOrder(order), soldOut };
}

/** DateTime as Prisma's SQLite adapter writes it (ISO 8601 with an explicit offset). */
function sqliteDateTime(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

function toOrder(row: OrderRow): Order {
  return {
    id: BigInt(row.id),
    petId: BigInt(row.petId),
    quantity: Number(row.quantity),
    shipDate: row.shipDate == null ? null : new Date(row.shipDate),
    complete: Boolean(row.complete),
    version: Number(row.version),
  };
}

export function orderById(db: Queries, id: bigint): Promise<Order | null> {
  return db.order.findUnique({ where: { id } });
}

/** Whether any order is of the pet. */
export async function petHasOrders(db: Queries, petId: bigint): Promise<boolean> {
  return (await db.order.findFirst({ where: { petId }, select: { id: true } })) !== null;
}

/** What an update changes of an order: `undefined` leaves a field as it is. */
export interface OrderChanges {
  shipDate?: Date | null | undefined;
  complete?: boolean | undefined;
}

/**
 * Changes the incomplete order read as `before` while it is still at that version: the order as it
 * is now (read again), or 'stale' when someone wrote it in between (perhaps completed it).
 */
export async function updateOrderIfVersion(
  tx: Tx,
  before: Order,
  changes: OrderChanges,
): Promise<Order | 'stale'> {
  const { count } = await tx.order.updateMany({
    where: { id: before.id, complete: false, version: before.version },
    data: { ...changes, version: nextVersion },
  });
  return count === 0 ? 'stale' : tx.order.findUniqueOrThrow({ where: { id: before.id } });
}

/**
 * Deletes the incomplete order read as `before` while it is still at that version (its stock is
 * the stock's to return): 'stale' when someone wrote it in between.
 */
export function deleteOrderIfVersion(tx: Tx, before: Order): Promise<'deleted' | 'stale'> {
  const deletion = tx.order.deleteMany({
    where: { id: before.id, complete: false, version: before.version },
  });
  return writtenOrStale(deletion, 'deleted');
}

/** Which orders a list holds: of a pet, complete or not (undefined: any). */
export interface OrderSelection {
  petId: bigint | undefined;
  complete: boolean | undefined;
}

/** One page of the orders selected, by id. */
export function orderPage(db: Queries, selection: OrderSelection, page: Page): Promise<Order[]> {
  return db.order.findMany(pageArgs(page, selection, 'id'));
}

export function countOrders(db: Queries, selection: OrderSelection): Promise<number> {
  return db.order.count({ where: selection });
}

/** Orders by id, in one statement (rows come back in no particular order). */
export function ordersByIds(db: Tx, ids: readonly bigint[]): Promise<Order[]> {
  return db.order.findMany({ where: { id: { in: [...ids] } } });
}

/** One page of orders for each pet, in one statement. */
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
