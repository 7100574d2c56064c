import type { Queries, Tx } from '../db/transaction.js';
import { type Page, pageArgs } from '../domain/paging.js';
import { nextVersion, writtenOrStale } from '../domain/versions.js';
import type { InventoryItem } from '../generated/sqlite/client.js';

/*
 * The stock's table: the only code that reads or writes it, with two exceptions. The stock by pet
 * id that every caller may see is read through the shared reads of src/db/shared-reads.ts. And
 * placing an order takes stock in its own statement (src/orders/store.ts): on PostgreSQL the
 * order, the stock, the pet's status and the events are one statement, which calling this store
 * would split into several round trips. The writes run in the rules' transactions (rules.ts) and
 * answer what happened.
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

export function itemByPetId(db: Queries, petId: bigint): Promise<InventoryItem | null> {
  return db.inventoryItem.findUnique({ where: { petId } });
}

/** A new pet's item, with no stock. */
export async function insertItem(tx: Tx, petId: bigint): Promise<void> {
  await tx.inventoryItem.create({ data: { petId, quantity: 0 } });
}

/**
 * Sets the stock of the item read as `before` while it is still at that version: the item as it
 * is now, or 'stale' when someone wrote it in between.
 */
export function setStockIfVersion(
  tx: Tx,
  before: InventoryItem,
  quantity: number,
): Promise<InventoryItem | 'stale'> {
  const update = tx.inventoryItem.updateMany({
    where: { petId: before.petId, version: before.version },
    data: { quantity, version: nextVersion },
  });
  return writtenOrStale(update, { ...before, quantity, version: before.version + 1 });
}

/** Puts `quantity` units back in the pet's stock (a cancelled order's). */
export async function returnStock(tx: Tx, petId: bigint, quantity: number): Promise<void> {
  await tx.inventoryItem.update({
    where: { petId },
    data: { quantity: { increment: quantity }, version: nextVersion },
  });
}

/** Bumps the item's version alone: it shows its pet's status, which changed. */
export async function bumpItemVersion(tx: Tx, petId: bigint): Promise<void> {
  await tx.inventoryItem.updateMany({ where: { petId }, data: { version: nextVersion } });
}
