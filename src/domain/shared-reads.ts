import DataLoader from 'dataloader';
import type { Db } from '../db/client.js';
import { categoriesByIds, inventoryByPetIds, petsByIds } from './batch-reads.js';
import { readOnly } from './changes.js';
import { anonymous, type DomainContext } from './context.js';

/**
 * Public reads by id, coalesced across the requests in flight on both edges: one batch gathers
 * the keys asked for during a whole turn of the event loop (`setImmediate`), whichever requests
 * asked, and reads them with one statement. Nothing is cached, and only data that every caller
 * may see (pets, categories, stock) goes through here; what depends on the caller's scopes never
 * does.
 */
export function createSharedReads(db: Db) {
  const domain: DomainContext = { db, viewer: anonymous, changes: readOnly };
  const coalesced = <Row>(
    read: (keys: readonly bigint[]) => Promise<Row[]>,
    keyOf: (row: Row) => bigint,
  ) =>
    new DataLoader<bigint, Row | null>(
      async (keys) => {
        const rows = new Map((await read([...new Set(keys)])).map((row) => [keyOf(row), row]));
        return keys.map((key) => rows.get(key) ?? null);
      },
      { cache: false, batchScheduleFn: (callback) => setImmediate(callback) },
    );
  return {
    pets: coalesced(
      (ids) => petsByIds(domain, ids),
      (pet) => pet.id,
    ),
    categories: coalesced(
      (ids) => categoriesByIds(domain, ids),
      (category) => category.id,
    ),
    inventory: coalesced(
      (ids) => inventoryByPetIds(domain, ids),
      (item) => item.petId,
    ),
  };
}

export type SharedReads = ReturnType<typeof createSharedReads>;
