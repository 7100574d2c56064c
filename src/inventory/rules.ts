import { requireScope } from '../domain/authorization.js';
import type { Change } from '../domain/changes.js';
import type { DomainContext } from '../domain/context.js';
import { parseId } from '../domain/ids.js';
import type { Page } from '../domain/paging.js';
import { integerInRange } from '../domain/validation.js';
import { type IfVersion, writeVersioned } from '../domain/versions.js';
import { writeReporting } from '../domain/write.js';
import * as pets from '../pets/store.js';
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
          () => store.itemByPetId(tx, petId),
          async (before) => {
            const item = await store.setStockIfVersion(tx, before, stock);
            if (item === 'stale') return undefined;
            const madeAvailable = stock > 0 && (await pets.makeAvailableIfSold(tx, petId));
            return { item, madeAvailable };
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
