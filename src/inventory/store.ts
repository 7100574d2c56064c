import type { Queries } from '../db/transaction.js';
import { type Page, pageArgs } from '../domain/paging.js';

/*
 * The reads of the stock (its writes run in the rules' transactions: rules.ts). Stock by pet id,
 * which every caller may see, is read through the shared reads of src/db/shared-reads.ts.
 */

/** The pet's status, which an inventory item shows on REST (GraphQL reads it through a loader). */
const withPetStatus = { include: { pet: { select: { status: true } } } } as const;

/** A pet's inventory item, with the pet's status. */
export function itemWithStatus(db: Queries, petId: bigint) {
  return db.inventoryItem.findUnique({ ...withPetStatus, where: { petId } });
}

/** One page of inventory items, by pet id. */
export function itemPage(db: Queries, page: Page) {
  return db.inventoryItem.findMany(pageArgs(page, {}, 'petId'));
}

/** One page of inventory items, by pet id, with their pets' status. */
export function itemPageWithStatus(db: Queries, page: Page) {
  return db.inventoryItem.findMany({ ...withPetStatus, ...pageArgs(page, {}, 'petId') });
}

export function countItems(db: Queries): Promise<number> {
  return db.inventoryItem.count();
}
