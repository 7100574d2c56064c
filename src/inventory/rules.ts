import { domainOperation } from '../tracing/hooks.js';
import { requireScope } from './authorization.js';
import type { Change } from './changes.js';
import type { DomainContext } from './context.js';
import { parseId } from './ids.js';
import { type Page, pageArgs } from './paging.js';
import { integerInRange } from './validation.js';
import { type IfVersion, nextVersion, writeVersioned } from './versions.js';
import { writeReporting } from './write.js';

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
