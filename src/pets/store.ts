import { type PageWindow, pagesByParent, type RawRow } from '../db/batch-reads.js';
import type { Queries, Tx } from '../db/transaction.js';
import { type Page, pageArgs } from '../domain/paging.js';
import type { Pet, Prisma } from '../generated/sqlite/client.js';

/*
 * The reads of pets (its writes run in the rules' transactions: rules.ts). Pets by id, which every
 * caller may see, are read through the shared reads of src/db/shared-reads.ts.
 */

/** One page of pets matching `where`, by id. */
export function petPage(db: Queries, where: Prisma.PetWhereInput, page: Page): Promise<Pet[]> {
  return db.pet.findMany(pageArgs(page, where, 'id'));
}

export function countPets(db: Queries, where: Prisma.PetWhereInput): Promise<number> {
  return db.pet.count({ where });
}

/** One page of pets (of `status`, when given) for each category, in one statement. */
export async function petPagesByCategory(
  db: Tx,
  categoryIds: readonly bigint[],
  status: Pet['status'] | undefined,
  page: PageWindow,
): Promise<Pet[]> {
  const rows = await db.$queryRaw<RawRow<Pet>[]>(
    pagesByParent(
      'Pet',
      ['id', 'name', 'categoryId', 'status', 'version'],
      'categoryId',
      categoryIds,
      page,
      status,
    ),
  );
  return rows.map(({ id, name, categoryId, status, version }) => ({
    id: BigInt(id),
    name,
    categoryId: BigInt(categoryId),
    status,
    version: Number(version),
  }));
}

/** How many pets each category has (with `status`, of that status): one statement. */
export async function petCountsByCategory(
  db: Tx,
  categoryIds: readonly bigint[],
  status: Pet['status'] | undefined,
): Promise<Map<bigint, number>> {
  const groups = await db.pet.groupBy({
    by: ['categoryId'],
    where: { categoryId: { in: [...categoryIds] }, status },
    _count: { _all: true },
  });
  return new Map(groups.map((group) => [group.categoryId, group._count._all]));
}
