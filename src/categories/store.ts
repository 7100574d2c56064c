import { unlessViolates } from '../db/errors.js';
import type { Queries, Tx } from '../db/transaction.js';
import { nextVersion, writtenOrStale } from '../domain/versions.js';
import type { Category } from '../generated/sqlite/client.js';

/*
 * The categories' table: the only code that reads or writes it (but for the categories by id that
 * every caller may see, read through the shared reads of src/db/shared-reads.ts). The writes run
 * in the rules' transactions (rules.ts) and answer what happened, never a database code.
 */

/** What a write sets of a category: `nameKey`, its name in lower case, is unique. */
export interface CategoryData {
  name: string;
  nameKey: string;
  description: string | null;
}

export function categoryById(db: Queries, id: bigint): Promise<Category | null> {
  return db.category.findUnique({ where: { id } });
}

export async function categoryExists(db: Queries, id: bigint): Promise<boolean> {
  return (await db.category.findUnique({ where: { id }, select: { id: true } })) !== null;
}

/** Every category, by id. */
export function allCategories(db: Queries): Promise<Category[]> {
  return db.category.findMany({ orderBy: { id: 'asc' } });
}

export function countCategories(db: Queries): Promise<number> {
  return db.category.count();
}

export function insertCategory(tx: Tx, data: CategoryData): Promise<Category | 'name taken'> {
  return unlessViolates(tx.category.create({ data }), 'unique', 'name taken');
}

/**
 * Writes `data` to the category read as `before` while it is still at that version: the category
 * as it is now, 'stale' when someone wrote it in between, or 'name taken' by another.
 */
export function updateCategoryIfVersion(
  tx: Tx,
  before: Category,
  data: CategoryData,
): Promise<Category | 'stale' | 'name taken'> {
  const update = tx.category.updateMany({
    where: { id: before.id, version: before.version },
    data: { ...data, version: nextVersion },
  });
  const after = { ...before, ...data, version: before.version + 1 };
  return unlessViolates(writtenOrStale(update, after), 'unique', 'name taken');
}

/**
 * Deletes the category while it is at `version`: 'stale' when someone wrote it in between,
 * 'has pets' when a pet is of it.
 */
export function deleteCategoryIfVersion(
  tx: Tx,
  id: bigint,
  version: number,
): Promise<'deleted' | 'stale' | 'has pets'> {
  const deletion = tx.category.deleteMany({ where: { id, version } });
  return unlessViolates(writtenOrStale(deletion, 'deleted'), 'foreign key', 'has pets');
}
