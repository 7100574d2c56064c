import type { Category, InventoryItem, Pet } from '../generated/sqlite/client.js';
import type { Tx } from './transaction.js';

/** Rows by key, read together with what the other requests in flight ask for. */
export interface SharedRead<Row> {
  /** The rows of `keys` that exist, by key (the map holds what the whole batch read). */
  many(keys: readonly bigint[]): Promise<ReadonlyMap<bigint, Row>>;
  /** The row of `key`, or null when there is none. */
  load(key: bigint): Promise<Row | null>;
}

/**
 * One batch gathers the keys asked for during a whole turn of the event loop (`setImmediate`),
 * whichever requests asked, and reads them with one statement. Every caller of the turn waits for
 * the batch's one promise, whatever the number of its keys (a page asks for a hundred). Nothing is
 * kept once the batch is answered.
 */
function sharedRead<Row>(
  read: (keys: readonly bigint[]) => Promise<Row[]>,
  keyOf: (row: Row) => bigint,
): SharedRead<Row> {
  let gathering: { keys: Set<bigint>; rows: Promise<Map<bigint, Row>> } | undefined;
  const many = (keys: readonly bigint[]) => {
    if (!gathering) {
      const batch = new Set<bigint>();
      const rows = new Promise<readonly bigint[]>((resolve) => {
        setImmediate(() => {
          gathering = undefined;
          resolve([...batch]);
        });
      })
        .then(read)
        .then((found) => new Map(found.map((row) => [keyOf(row), row])));
      gathering = { keys: batch, rows };
    }
    for (const key of keys) gathering.keys.add(key);
    return gathering.rows;
  };
  return {
    many,
    load: async (key) => (await many([key])).get(key) ?? null,
  };
}

/*
 * The public rows by id: read here rather than in their resources' stores (src/pets/store.ts, ...),
 * because the REST kit types its handlers with these reads and both edges make them anew for a
 * request that runs in one transaction: they sit below the resources (see README.md).
 */

function petsByIds(db: Tx, ids: readonly bigint[]): Promise<Pet[]> {
  return db.pet.findMany({ where: { id: { in: [...ids] } } });
}

function categoriesByIds(db: Tx, ids: readonly bigint[]): Promise<Category[]> {
  return db.category.findMany({ where: { id: { in: [...ids] } } });
}

function inventoryByPetIds(db: Tx, petIds: readonly bigint[]): Promise<InventoryItem[]> {
  return db.inventoryItem.findMany({ where: { petId: { in: [...petIds] } } });
}

/**
 * Public reads by id, coalesced across the requests in flight on both edges (`sharedRead`). Only
 * data that every caller may see (pets, categories, stock) goes through here; what depends on the
 * caller's scopes never does.
 */
export function createSharedReads(db: Tx) {
  return {
    pets: sharedRead(
      (ids) => petsByIds(db, ids),
      (pet) => pet.id,
    ),
    categories: sharedRead(
      (ids) => categoriesByIds(db, ids),
      (category) => category.id,
    ),
    inventory: sharedRead(
      (ids) => inventoryByPetIds(db, ids),
      (item) => item.petId,
    ),
  };
}

export type SharedReads = ReturnType<typeof createSharedReads>;
