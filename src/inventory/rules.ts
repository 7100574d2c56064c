import { requireScope } from '../domain/authorization.js';
import type { Change } from '../domain/changes.js';
import type { DomainContext } from '../domain/context.js';
import { parseId } from '../domain/ids.js';
import type { Page } from '../domain/paging.js';
import { integerInRange } from '../domain/validation.js';
import { type IfVersion, nextVersion, writeVersioned } from '../domain/versions.js';
import { writeReporting } from '../domain/write.js';
import { domainOperation } from '../tracing/hooks.js';
import * as store from './store.js';

export const MAX_STOCK = 1_000_000;

export const getInventoryItem = domainOperation(
  'getInventoryItem',
  function getInventoryItem(ctx: DomainContext, rawPetId: unknown) {
    return store.itemWithStatus(ctx.db, parseId(rawPetId, 'petId'));
  },
);

export const listInventory = domainOperation(
  'listInventory',
  function listInventory(ctx: DomainContext, page: Page) {
    return store.itemPage(ctx.db, page);
  },
);

export const listInventoryWithStatus = domainOperation(
  'listInventoryWithStatus',
  function listInventoryWithStatus(ctx: DomainContext, page: Page) {
    return store.itemPageWithStatus(ctx.db, page);
  },
);

export const countInventory = domainOperation(
  'countInventory',
  function countInventory(ctx: DomainContext) {
    return store.countItems(ctx.db);
  },
);

/**
 * Sets a pet's stock. Stock above 0 makes a sold pet available again (bumping the pet's version
 * too); 0 changes no status. With `ifVersion`, only while the inventory item is still at one of
 * those versions (else PRECONDITION_FAILED).
 */
export const updateInventory = domainOperation(
  'updateInventory',
  async function updateInventory(
    ctx: DomainContext,
    rawPetId: unknown,
    quantity: number,
    ifVersion?: IfVersion,
  ) {
    requireScope(ctx.viewer, 'inventory:write');
    const petId = parseId(rawPetId, 'petId');
    const stock = integerInRange(quantity, 'quantity', 0, MAX_STOCK);
    const { item } = await writeReporting(
      ctx,
      (tx) =>
        writeVersioned(
          { resource: 'pet', id: petId, ifVersion, name: `The stock of pet ${petId}` },
          () => tx.inventoryItem.findUnique({ where: { petId } }),
          async (before) => {
            const { count } = await tx.inventoryItem.updateMany({
              where: { petId, version: before.version },
              data: { quantity: stock, version: nextVersion },
            });
            if (count === 0) return undefined;
            const { count: madeAvailable } =
              stock > 0
                ? await tx.pet.updateMany({
                    where: { id: petId, status: 'sold' },
                    data: { status: 'available', version: nextVersion },
                  })
                : { count: 0 };
            const item = { ...before, quantity: stock, version: before.version + 1 };
            return { item, madeAvailable: madeAvailable > 0 };
          },
        ),
      ({ madeAvailable }) => {
        const changes: Change[] = [{ entity: 'inventory', kind: 'updated', petId }];
        if (madeAvailable) changes.push({ entity: 'pet', kind: 'updated', id: petId });
        return changes;
      },
    );
    return item;
  },
);
