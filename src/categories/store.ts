import type { Queries } from '../db/transaction.js';
import type { Category } from '../generated/sqlite/client.js';

/*
 * The reads of categories (their writes run in the rules' transactions: rules.ts). Categories by
 * id, which every caller may see, are read through the shared reads of src/db/shared-reads.ts.
 */

export function categoryById(db: Queries, id: bigint): Promise<Category | null> {
  return db.category.findUnique({ where: { id } });
}

/** Every category, by id. */
export function allCategories(db: Queries): Promise<Category[]> {
  return db.category.findMany({ orderBy: { id: 'asc' } });
}

export function countCategories(db: Queries): Promise<number> {
  return db.category.count();
}
