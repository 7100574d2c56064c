import { categoriesByIds, inventoryByPetIds, petsByIds } from './batch-reads.js';
import { keyedLoader } from './keyed-loader.js';
import type { Tx } from './transaction.js';

/**
 * Public reads by id, coalesced across the requests in flight on both edges: one batch gathers
 * the keys asked for during a whole turn of the event loop (`setImmediate`), whichever requests
 * asked, and reads them with one statement. Nothing is cached, and only data that every caller
 * may see (pets, categories, stock) goes through here; what depends on the caller's scopes never
 * does.
 */
export function createSharedReads(db: Tx) {
  const options = { cache: false, batchScheduleFn: (send: () => void) => setImmediate(send) };
  return {
    pets: keyedLoader(
      (ids) => petsByIds(db, ids),
      (pet) => pet.id,
      options,
    ),
    categories: keyedLoader(
      (ids) => categoriesByIds(db, ids),
      (category) => category.id,
      options,
    ),
    inventory: keyedLoader(
      (ids) => inventoryByPetIds(db, ids),
      (item) => item.petId,
      options,
    ),
  };
}

export type SharedReads = ReturnType<typeof createSharedReads>;
