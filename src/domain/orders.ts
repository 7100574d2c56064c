import type { Prisma } from '../generated/sqlite/client.js';
import { requireScope } from './authorization.js';
import type { DomainContext } from './context.js';
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

/** The Prisma selection (include/select) that GraphQL plans for a request and passes through. */
type Selection = Pick<Prisma.OrderFindManyArgs, 'select' | 'include'>;

export function ordersWhere(filter: OrderFilter): Prisma.OrderWhereInput {
  return {
    petId: filter.petId == null ? undefined : parseId(filter.petId, 'petId'),
    complete: filter.complete ?? undefined,
  };
}

export function getOrder(ctx: DomainContext, rawId: unknown, selection: Selection = {}) {
  requireScope(ctx.viewer, 'orders:read');
  return ctx.db.order.findUnique({ ...selection, where: { id: parseId(rawId, 'id') } });
}

export function listOrders(
  ctx: DomainContext,
  filter: OrderFilter,
  page: Page,
  selection: Selection = {},
) {
  requireScope(ctx.viewer, 'orders:read');
  return ctx.db.order.findMany({ ...selection, ...pageArgs(page, ordersWhere(filter), 'id') });
}

export function countOrders(ctx: DomainContext, filter: OrderFilter) {
  requireScope(ctx.viewer, 'orders:read');
  return ctx.db.order.count({ where: ordersWhere(filter) });
}

/**
 * Places an order: one transaction that takes the stock with a conditional update (so concurrent
 * orders queue on the inventory row and can never oversell), checks the pet is available, inserts
 * the order, and marks the pet sold when it took the last unit.
 */
export async function placeOrder(
  ctx: DomainContext,
  input: NewOrderInput,
  selection: Selection = {},
) {
  requireScope(ctx.viewer, 'orders:write');
  const petId = parseId(input.petId, 'petId');
  const quantity = integerInRange(input.quantity, 'quantity', 1, MAX_ORDER_QUANTITY);
  const shipDate = optionalDateTime(input.shipDate, 'shipDate');
  const order = await inTransaction(ctx, async (tx) => {
    const taken = await tx.inventoryItem.updateMany({
      where: { petId, quantity: { gte: quantity } },
      data: { quantity: { decrement: quantity } },
    });
    // Read after the update: on PostgreSQL the row lock makes this the latest committed status.
    const pet = await tx.pet.findUnique({ where: { id: petId }, select: { status: true } });
    if (!pet) throw new DomainError('UNKNOWN_PET', `petId ${petId} names no existing pet`);
    if (pet.status !== 'available') {
      throw new DomainError('PET_NOT_AVAILABLE', `Pet ${petId} is ${pet.status}, not available`);
    }
    if (taken.count === 0) {
      throw new DomainError(
        'INSUFFICIENT_STOCK',
        `Pet ${petId} has fewer than ${quantity} units in stock`,
      );
    }
    const stock = await tx.inventoryItem.findUniqueOrThrow({
      where: { petId },
      select: { quantity: true },
    });
    if (stock.quantity === 0) {
      await tx.pet.update({ where: { id: petId }, data: { status: 'sold' } });
    }
    return tx.order.create({ ...selection, data: { petId, quantity, shipDate } });
  });
  await ctx.changes.publish([
    { entity: 'order', kind: 'created', id: order.id, petId },
    { entity: 'inventory', kind: 'updated', petId },
    // Taking the last unit makes the pet sold.
    { entity: 'pet', kind: 'updated', id: petId },
  ]);
  return order;
}

/** Updates shipDate and/or completes an order. Completion is final. */
export async function updateOrder(
  ctx: DomainContext,
  rawId: unknown,
  input: OrderUpdateInput,
  selection: Selection = {},
) {
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
      return tx.order.findUniqueOrThrow({ ...selection, where: { id } });
    }
    // Nothing to change: on SQLite an updateMany with no data counts 0 rows, which is no conflict.
    if (shipDate === undefined && complete === undefined) return order;
    const { count } = await tx.order.updateMany({
      where: { id, complete: false },
      data: { shipDate, complete },
    });
    if (count === 0) throw alreadyComplete(id, 'changed');
    return tx.order.findUniqueOrThrow({ ...selection, where: { id } });
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
