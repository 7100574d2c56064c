import { requireScope } from '../domain/authorization.js';
import type { Change } from '../domain/changes.js';
import type { DomainContext } from '../domain/context.js';
import { parseId } from '../domain/ids.js';
import type { Page } from '../domain/paging.js';
import { integerInRange, optionalDateTime } from '../domain/validation.js';
import { type IfVersion, writeVersioned } from '../domain/versions.js';
import { writeAppendingEvents, writeReporting, writeReportingSql } from '../domain/write.js';
import { DomainError } from '../errors/catalogue.js';
import * as inventory from '../inventory/store.js';
import * as pets from '../pets/store.js';
import { domainOperation } from '../tracing/hooks.js';
import * as store from './store.js';
import { type Placed, placeOrderPostgres, placeOrderSqlite } from './store.js';

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

function selected(filter: OrderFilter): store.OrderSelection {
  return {
    petId: filter.petId == null ? undefined : parseId(filter.petId, 'petId'),
    complete: filter.complete ?? undefined,
  };
}

export const getOrder = domainOperation(
  'getOrder',
  function getOrder(ctx: DomainContext, rawId: unknown) {
    requireScope(ctx.viewer, 'orders:read');
    return store.orderById(ctx.db, parseId(rawId, 'id'));
  },
);

export const listOrders = domainOperation(
  'listOrders',
  function listOrders(ctx: DomainContext, filter: OrderFilter, page: Page) {
    requireScope(ctx.viewer, 'orders:read');
    return store.orderPage(ctx.db, selected(filter), page);
  },
);

/** Orders by id, for a caller who may read orders (rows come back in no particular order). */
export function ordersByIds(ctx: DomainContext, ids: readonly bigint[]) {
  requireScope(ctx.viewer, 'orders:read');
  return store.ordersByIds(ctx.db, ids);
}

/** One page of orders for each pet, in one statement. */
export function orderPagesByPet(ctx: DomainContext, petIds: readonly bigint[], page: Page) {
  requireScope(ctx.viewer, 'orders:read');
  return store.orderPagesByPet(ctx.db, petIds, page);
}

/** How many orders each pet has, in one statement. */
export function orderCountsByPet(ctx: DomainContext, petIds: readonly bigint[]) {
  requireScope(ctx.viewer, 'orders:read');
  return store.orderCountsByPet(ctx.db, petIds);
}

export const countOrders = domainOperation(
  'countOrders',
  function countOrders(ctx: DomainContext, filter: OrderFilter) {
    requireScope(ctx.viewer, 'orders:read');
    return store.countOrders(ctx.db, selected(filter));
  },
);

/**
 * Places an order, holding every stock rule: the pet must exist and be available (checked first,
 * on its latest committed status), the stock must cover the quantity, and taking the last unit
 * marks the pet sold. On PostgreSQL one statement writes the order with its events; on SQLite its
 * statements run in a transaction. Either way the request time limit bounds the write (the
 * database's limit on a statement or transaction: src/db/client.ts): an order whose request timed
 * out is rolled back, never committed when a lock it waited for goes away.
 */
export const placeOrder = domainOperation(
  'placeOrder',
  async function placeOrder(ctx: DomainContext, input: NewOrderInput) {
    requireScope(ctx.viewer, 'orders:write');
    const petId = parseId(input.petId, 'petId');
    const quantity = integerInRange(input.quantity, 'quantity', 1, MAX_ORDER_QUANTITY);
    const shipDate = optionalDateTime(input.shipDate, 'shipDate');
    const changesOf = ({ order, soldOut }: Placed): Change[] => {
      if (!order) return [];
      // In the order of the events placeOrderPostgres appends.
      const changes: Change[] = [
        { entity: 'order', kind: 'created', id: order.id, petId },
        { entity: 'inventory', kind: 'updated', petId },
      ];
      // The pet itself changes only when this order took its last unit: it is sold now.
      if (soldOut) changes.push({ entity: 'pet', kind: 'updated', id: petId });
      return changes;
    };
    const placed =
      ctx.dialect === 'postgresql'
        ? await writeAppendingEvents(
            ctx,
            (writer) => placeOrderPostgres(ctx.sql.query, petId, quantity, shipDate, writer),
            changesOf,
          )
        : await writeReportingSql(
            ctx,
            (query) => placeOrderSqlite(query, petId, quantity, shipDate),
            changesOf,
          );
    if (placed.order) return placed.order;
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
  },
);

/**
 * Updates shipDate and/or completes an order. Completion is final. With `ifVersion`, only while the
 * order is still at one of those versions (else PRECONDITION_FAILED).
 */
export const updateOrder = domainOperation(
  'updateOrder',
  async function updateOrder(
    ctx: DomainContext,
    rawId: unknown,
    input: OrderUpdateInput,
    ifVersion?: IfVersion,
  ) {
    requireScope(ctx.viewer, 'orders:write');
    const id = parseId(rawId, 'id');
    const shipDate =
      input.shipDate === undefined ? undefined : optionalDateTime(input.shipDate, 'shipDate');
    const complete = input.complete ?? undefined;
    return writeReporting(
      ctx,
      (tx) =>
        writeVersioned(
          { resource: 'order', id, ifVersion },
          () => store.orderById(tx, id),
          async (order) => {
            if (order.complete) {
              const reopens = complete === false;
              const movesShipDate =
                shipDate !== undefined && shipDate?.getTime() !== order.shipDate?.getTime();
              if (reopens || movesShipDate) throw alreadyComplete(id, 'changed');
              return order;
            }
            // Nothing to change: the order stays as it is, at its version.
            if (shipDate === undefined && complete === undefined) return order;
            const updated = await store.updateOrderIfVersion(tx, order, { shipDate, complete });
            // Changed since it was read (perhaps completed): read again.
            return updated === 'stale' ? undefined : updated;
          },
        ),
      (order) => [{ entity: 'order', kind: 'updated', id, petId: order.petId }],
    );
  },
);

/**
 * Cancels (deletes) an incomplete order, returning its units to stock (which bumps the inventory
 * item's version, and the pet's when it turns available again). With `ifVersion`, as updateOrder.
 */
export const cancelOrder = domainOperation(
  'cancelOrder',
  async function cancelOrder(
    ctx: DomainContext,
    rawId: unknown,
    ifVersion?: IfVersion,
  ): Promise<bigint> {
    requireScope(ctx.viewer, 'orders:write');
    const id = parseId(rawId, 'id');
    await writeReporting(
      ctx,
      (tx) =>
        writeVersioned(
          { resource: 'order', id, ifVersion },
          () => store.orderById(tx, id),
          async (order) => {
            if (order.complete) throw alreadyComplete(id, 'cancelled');
            if ((await store.deleteOrderIfVersion(tx, order)) === 'stale') return undefined;
            await inventory.returnStock(tx, order.petId, order.quantity);
            const madeAvailable = await pets.makeAvailableIfSold(tx, order.petId);
            return { petId: order.petId, madeAvailable };
          },
        ),
      ({ petId, madeAvailable }) => {
        const changes: Change[] = [
          { entity: 'order', kind: 'deleted', id, petId },
          { entity: 'inventory', kind: 'updated', petId },
        ];
        if (madeAvailable) changes.push({ entity: 'pet', kind: 'updated', id: petId });
        return changes;
      },
    );
    return id;
  },
);

function alreadyComplete(id: bigint, verb: string): DomainError {
  return new DomainError('ORDER_ALREADY_COMPLETE', `Order ${id} is complete and cannot be ${verb}`);
}
