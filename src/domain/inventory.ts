import { inTransaction } from '../db/transaction.js';
import { domainOperation } from '../tracing/hooks.js';
import { requireScope } from './authorization.js';
import type { Change } from './changes.js';
import type { DomainContext } from './context.js';
import { parseId } from './ids.js';
import { notFound } from './not-found.js';
import { type Page, pageArgs } from './paging.js';
import { integerInRange } from './validation.js';

export const MAX_STOCK = 1_000_000;

/** The pet's status, which an inventory item shows on REST (GraphQL reads it through a loader). */
const withPetStatus = { include: { pet: { select: { status: true } } } } as const;

export const getInventoryItem = domainOperation(
  'getInventoryItem',
  function getInventoryItem(ctx: DomainContext, rawPetId: unknown) {
    return ctx.db.inventoryItem.findUnique({
      ...withPetStatus,
      where: { petId: parseId(rawPetId, 'petId') },
    });
  },
);

export const listInventory = domainOperation(
  'listInventory',
  function listInventory(ctx: DomainContext, page: Page) {
    return ctx.db.inventoryItem.findMany(pageArgs(page, {}, 'petId'));
  },
);

export const listInventoryWithStatus = domainOperation(
  'listInventoryWithStatus',
  function listInventoryWithStatus(ctx: DomainContext, page: Page) {
    return ctx.db.inventoryItem.findMany({ ...withPetStatus, ...pageArgs(page, {}, 'petId') });
  },
);

export const countInventory = domainOperation(
  'countInventory',
  function countInventory(ctx: DomainContext) {
    return ctx.db.inventoryItem.count();
  },
);

/** Sets a pet's stock. Stock above 0 makes a sold pet available again; 0 changes no status. */
export const updateInventory = domainOperation(
  'updateInventory',
  async function updateInventory(ctx: DomainContext, rawPetId: unknown, quantity: number) {
    requireScope(ctx.viewer, 'inventory:write');
    const petId = parseId(rawPetId, 'petId');
    const stock = integerInRange(quantity, 'quantity', 0, MAX_STOCK);
    const { item, madeAvailable } = await inTransaction(ctx.db, async (tx) => {
      const { count } = await tx.inventoryItem.updateMany({
        where: { petId },
        data: { quantity: stock },
      });
      if (count === 0) notFound('pet', petId);
      const { count: madeAvailable } =
        stock > 0
          ? await tx.pet.updateMany({
              where: { id: petId, status: 'sold' },
              data: { status: 'available' },
            })
          : { count: 0 };
      const item = await tx.inventoryItem.findUniqueOrThrow({ where: { petId } });
      return { item, madeAvailable: madeAvailable > 0 };
    });
    const changes: Change[] = [{ entity: 'inventory', kind: 'updated', petId }];
    if (madeAvailable) changes.push({ entity: 'pet', kind: 'updated', id: petId });
    await ctx.changes.publish(changes);
    return item;
  },
);
