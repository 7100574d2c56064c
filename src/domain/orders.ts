import type { Order, Prisma } from '../generated/sqlite/client.js';
import { requireScope } from './authorization.js';
import type { DomainContext } from './context.js';
import { dialectOf } from './dialect.js';
import { DomainError } from './errors.js';
import { parseId } from './ids.js';
import { type Page, pageArgs } from './paging.js';
import { inTransaction, type Tx } from './transaction.js';
import { integerInRange, optionalDateTime } from './validation.js';

export const MAX_ORDER_QUANTITY = 10_000;

export interface NewOrderInput {
  petId: unknown;
  quantity: number;
  shipDate?: Date | string | null | undefined;
}

/** `undefined` leaves a field as it is; a `null` shipDate clears it. */
export interface OrderUpdateInput {
  shipDate?: Date | string | null | undefined;
  complete?: boolean | null | undefined;
}

export interface OrderFilter {
  petId?: unknown;
  complete?: boolean | null | undefined;
}

export function ordersWhere(filter: OrderFilter): Prisma.OrderWhereInput {
  return {
    petId: filter.petId == null ? undefined : parseId(filter.petId, 'petId'),
    complete: filter.complete ?? undefined,
  };
}

export function getOrder(ctx: DomainContext, rawId: unknown) {
  requireScope(ctx.viewer, 'orders:read');
  return ctx.db.order.findUnique({ where: { id: parseId(rawId, 'id') } });
}

export function listOrders(ctx: DomainContext, filter: OrderFilter, page: Page) {
  requireScope(ctx.viewer, 'orders:read');
  return ctx.db.order.findMany(pageArgs(page, ordersWhere(filter), 'id'));
}

export function countOrders(ctx: DomainContext, filter: OrderFilter) {
  requireScope(ctx.viewer, 'orders:read');
  return ctx.db.order.count({ where: ordersWhere(filter) });
}

/**
 * Places an order with as few statements as the database allows, holding every stock rule: the
 * pet must exist and be available (checked first, on its latest committed status), the stock
 * must cover the quantity, and taking the last unit marks the pet sold. The stock is taken by a
 * conditional update, so concurrent orders queue on the row and can never oversell.
 *
 * Prisma cannot express a conditional write that reports what it did, so this is raw SQL: on
 * PostgreSQL one statement (the pet row locked, then the stock, the status and the order in
 * data-modifying CTEs); on SQLite, which has no such CTEs and runs one writer at a time, the order
 * then the stock (and the status after the last unit). Either runs in a transaction so that the
 * request time limit bounds it: an order whose request timed out is rolled back, never committed
 * when a lock it waited for goes away.
 */
export async function placeOrder(ctx: DomainContext, input: NewOrderInput) {
  requireScope(ctx.viewer, 'orders:write');
  const petId = parseId(input.petId, 'petId');
  const quantity = integerInRange(input.quantity, 'quantity', 1, MAX_ORDER_QUANTITY);
  const shipDate = optionalDateTime(input.shipDate, 'shipDate');
  const place = dialectOf(ctx.db) === 'postgresql' ? placeOrderPostgres : placeOrderSqlite;
  const placed = await inTransaction(ctx, (tx) => place(tx, petId, quantity, shipDate));
  if (placed.order) {
    const order = toOrder(placed.order);
    await ctx.changes.publish([
      { entity: 'order', kind: 'created', id: order.id, petId },
      { entity: 'inventory', kind: 'updated', petId },
      // Taking the last unit makes the pet sold.
      { entity: 'pet', kind: 'updated', id: petId },
    ]);
    return order;
  }
  if (placed.status === undefined) {
    throw new DomainError('UNKNOWN_PET', `petId ${petId} names no existing pet`);
  }
  if (placed.status !== 'available') {
    throw new DomainError('PET_NOT_AVAILABLE', `Pet ${petId} is ${placed.status}, not available`);
  }
  throw new DomainError(
    'INSUFFICIENT_STOCK',
    `Pet ${petId} has fewer than ${quantity} units in stock`,
  );
}

/**
 * An order row as raw SQL returns it (types differ between the drivers). SQLite's statement reads
 * the ids as text: its driver would hand them over as doubles, rounded above 2^53.
 */
interface OrderRow {
  id: bigint | string;
  petId: bigint | string;
  quantity: bigint | number;
  shipDate: Date | string | null;
  complete: boolean | number | bigint;
}

/** The order when it was placed; otherwise the pet's status (undefined: no such pet). */
interface Placed {
  order?: OrderRow | undefined;
  status?: string | undefined;
}

async function placeOrderPostgres(
  db: Tx,
  petId: bigint,
  quantity: number,
  shipDate: Date | null,
): Promise<Placed> {
  // The pet row is locked first (FOR NO KEY UPDATE still lets orders reference it), so an order
  // that waited for another reads the status that one left: after the last unit, `sold`.
  const rows = await db.$queryRaw<(Partial<OrderRow> & { status: string })[]>`
    WITH pet AS (
      SELECT "id", "status" FROM "Pet" WHERE "id" = ${petId} FOR NO KEY UPDATE
    ), taken AS (
      UPDATE "InventoryItem" AS stock SET "quantity" = stock."quantity" - ${quantity}::integer
        FROM pet
       WHERE stock."petId" = pet."id" AND pet."status" = 'available'
         AND stock."quantity" >= ${quantity}::integer
      RETURNING stock."quantity"
    ), sold AS (
      UPDATE "Pet" SET "status" = 'sold' FROM taken
       WHERE "Pet"."id" = ${petId} AND taken."quantity" = 0
      RETURNING "Pet"."id"
    ), placed AS (
      INSERT INTO "Order" ("petId", "quantity", "shipDate")
      SELECT ${petId}, ${quantity}::integer, ${shipDate?.toISOString() ?? null}::timestamp(3)
        FROM taken
      RETURNING "id", "petId", "quantity", "shipDate", "complete"
    )
    SELECT pet."status"::text AS "status", placed.* FROM pet LEFT JOIN placed ON true`;
  const [row] = rows;
  if (!row) return {};
  return { status: row.status, order: row.id == null ? undefined : (row as OrderRow) };
}

async function placeOrderSqlite(
  db: Tx,
  petId: bigint,
  quantity: number,
  shipDate: Date | null,
): Promise<Placed> {
  // One writer at a time: from its first write on, the transaction sees the latest state alone.
  const [order] = await db.$queryRaw<OrderRow[]>`
    INSERT INTO "Order" ("petId", "quantity", "shipDate", "complete")
    SELECT ${petId}, ${quantity}, ${shipDate ? sqliteDateTime(shipDate) : null}, false
     WHERE EXISTS (SELECT 1 FROM "Pet" WHERE "id" = ${petId} AND "status" = 'available')
       AND EXISTS (SELECT 1 FROM "InventoryItem"
                    WHERE "petId" = ${petId} AND "quantity" >= ${quantity})
    RETURNING CAST("id" AS TEXT) AS "id", CAST("petId" AS TEXT) AS "petId", "quantity", "shipDate", "complete"`;
  if (!order) {
    // Refused: the reason (only the error's code depends on it).
    const pet = await db.pet.findUnique({ where: { id: petId }, select: { status: true } });
    return { status: pet?.status };
  }
  const [stock] = await db.$queryRaw<{ quantity: bigint | number }[]>`
    UPDATE "InventoryItem" SET "quantity" = "quantity" - ${quantity} WHERE "petId" = ${petId}
    RETURNING "quantity"`;
  if (Number(stock?.quantity) === 0) {
    await db.pet.update({ where: { id: petId }, data: { status: 'sold' } });
  }
  return { order };
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
  };
}

/** Updates shipDate and/or completes an order. Completion is final. */
export async function updateOrder(ctx: DomainContext, rawId: unknown, input: OrderUpdateInput) {
  requireScope(ctx.viewer, 'orders:write');
  const id = parseId(rawId, 'id');
  const shipDate =
    input.shipDate === undefined ? undefined : optionalDateTime(input.shipDate, 'shipDate');
  const complete = input.complete ?? undefined;
  const order = await inTransaction(ctx, async (tx) => {
    const order = await requireOrder(tx, id);
    if (order.complete) {
      const reopens = complete === false;
      const movesShipDate =
        shipDate !== undefined && shipDate?.getTime() !== order.shipDate?.getTime();
      if (reopens || movesShipDate) throw alreadyComplete(id, 'changed');
      return order;
    }
    // Nothing to change: on SQLite an updateMany with no data counts 0 rows, which is no conflict.
    if (shipDate === undefined && complete === undefined) return order;
    const { count } = await tx.order.updateMany({
      where: { id, complete: false },
      data: { shipDate, complete },
    });
    if (count === 0) throw alreadyComplete(id, 'changed');
    return tx.order.findUniqueOrThrow({ where: { id } });
  });
  await ctx.changes.publish([{ entity: 'order', kind: 'updated', id, petId: order.petId }]);
  return order;
}

/** Cancels (deletes) an incomplete order, returning its units to stock. */
export async function cancelOrder(ctx: DomainContext, rawId: unknown): Promise<bigint> {
  requireScope(ctx.viewer, 'orders:write');
  const id = parseId(rawId, 'id');
  const { petId } = await inTransaction(ctx, async (tx) => {
    const order = await requireOrder(tx, id);
    const { count } = await tx.order.deleteMany({ where: { id, complete: false } });
    if (count === 0) throw alreadyComplete(id, 'cancelled');
    await tx.inventoryItem.update({
      where: { petId: order.petId },
      data: { quantity: { increment: order.quantity } },
    });
    await tx.pet.updateMany({
      where: { id: order.petId, status: 'sold' },
      data: { status: 'available' },
    });
    return order;
  });
  await ctx.changes.publish([
    { entity: 'order', kind: 'deleted', id, petId },
    { entity: 'inventory', kind: 'updated', petId },
    { entity: 'pet', kind: 'updated', id: petId },
  ]);
  return id;
}

async function requireOrder(tx: Tx, id: bigint) {
  const order = await tx.order.findUnique({ where: { id } });
  if (!order) throw new DomainError('ORDER_NOT_FOUND', `Order ${id} does not exist`);
  return order;
}

function alreadyComplete(id: bigint, verb: string): DomainError {
  return new DomainError('ORDER_ALREADY_COMPLETE', `Order ${id} is complete and cannot be ${verb}`);
}
