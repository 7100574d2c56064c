import { type PageWindow, pagesByParent, type RawRow } from '../db/batch-reads.js';
import { unlessViolates } from '../db/errors.js';
import type { Queries, Tx } from '../db/transaction.js';
import { type Page, pageArgs } from '../domain/paging.js';
import { nextVersion, writtenOrStale } from '../domain/versions.js';
import type { Pet } from '../generated/sqlite/client.js';

/*
 * The pets' table: the only code that reads or writes it (but for the pets by id that every
 * caller may see, read through the shared reads of src/db/shared-reads.ts, and an order's
 * placement, which marks a pet sold in its own statement: src/orders/store.ts). The writes run in
 * the rules' transactions (rules.ts) and answer what happened, never a database code.
 */

/** What a write sets of a pet; an omitted status keeps the current one (a new pet's: available). */
export interface PetData {
  name: string;
  categoryId: bigint;
  status?: Pet['status'] | undefined;
}

/** Which pets a list holds: of a status, of a category (undefined: any). */
export interface PetSelection {
  status: Pet['status'] | undefined;
  categoryId: bigint | undefined;
}

export function petById(db: Queries, id: bigint): Promise<Pet | null> {
  return db.pet.findUnique({ where: { id } });
}

/** Whether any pet is of the category. */
export async function categoryHasPets(db: Queries, categoryId: bigint): Promise<boolean> {
  return (await db.pet.findFirst({ where: { categoryId }, select: { id: true } })) !== null;
}

/** Inserts a pet (its inventory item is the stock's to insert); its category may be gone since read. */
export function insertPet(tx: Tx, data: PetData): Promise<Pet | 'unknown category'> {
  return unlessViolates(tx.pet.create({ data }), 'foreign key', 'unknown category');
}

/**
 * Writes `data` to the pet read as `before` while it is still at that version: the pet as it is
 * now, 'stale' when someone wrote it in between, or 'unknown category' when the category named is
 * gone.
 */
export function updatePetIfVersion(
  tx: Tx,
  before: Pet,
  data: PetData,
): Promise<Pet | 'stale' | 'unknown category'> {
  const update = tx.pet.updateMany({
    where: { id: before.id, version: before.version },
    data: { ...data, version: nextVersion },
  });
  const status = data.status ?? before.status;
  const after = { ...before, ...data, status, version: before.version + 1 };
  return unlessViolates(writtenOrStale(update, after), 'foreign key', 'unknown category');
}

/**
 * Deletes the pet (and, by the database's cascade, its inventory item) while it is at `version`:
 * 'stale' when someone wrote it in between, 'has orders' when an order names it.
 */
export function deletePetIfVersion(
  tx: Tx,
  id: bigint,
  version: number,
): Promise<'deleted' | 'stale' | 'has orders'> {
  const deletion = tx.pet.deleteMany({ where: { id, version } });
  return unlessViolates(writtenOrStale(deletion, 'deleted'), 'foreign key', 'has orders');
}

/** Makes the pet available if it is sold (its stock came back): whether it was. */
export async function makeAvailableIfSold(tx: Tx, id: bigint): Promise<boolean> {
  const { count } = await tx.pet.updateMany({
    where: { id, status: 'sold' },
    data: { status: 'available', version: nextVersion },
  });
  return count > 0;
}

/** One page of the pets selected, by id. */
export function petPage(db: Queries, selection: PetSelection, page: Page): Promise<Pet[]> {
  return db.pet.findMany(pageArgs(page, selection, 'id'));
}

export function countPets(db: Queries, selection: PetSelection): Promise<number> {
  return db.pet.count({ where: selection });
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
