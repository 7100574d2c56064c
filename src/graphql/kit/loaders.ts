import type DataLoader from 'dataloader';
import type { Page } from '../../domain/paging.js';
import type { Category, InventoryItem, Order, Pet } from '../../generated/sqlite/client.js';

/** The pets of categories asked for together: one status and page. */
export interface PetsOfCategory {
  status: string | null | undefined;
  page: Page;
}

/**
 * The request's loaders, as resolvers use them: every read by id and every relation goes through
 * one, so a request costs one statement per kind of row and level, however many rows it returns.
 * Made of the resources' stores by src/graphql/loaders.ts, above the resources: a resource's
 * fields reach another's rows through these, never through its module.
 */
export interface Loaders {
  readonly pet: DataLoader<bigint, Pet | null>;
  readonly category: DataLoader<bigint, Category | null>;
  readonly inventory: DataLoader<bigint, InventoryItem | null>;
  readonly order: DataLoader<bigint, Order | null>;
  readonly petsOfCategory: (args: PetsOfCategory) => DataLoader<bigint, Pet[]>;
  readonly petCountOfCategory: (status: string | null | undefined) => DataLoader<bigint, number>;
  readonly ordersOfPet: (page: Page) => DataLoader<bigint, Order[]>;
  readonly orderCountOfPet: DataLoader<bigint, number>;
}

/** Rows read by a list, kept in `loader` so that fields reading them by key again cost nothing. */
export function primed<Row>(
  loader: DataLoader<bigint, Row | null>,
  rows: Row[],
  keyOf: (row: Row) => bigint,
): Row[] {
  for (const row of rows) loader.prime(keyOf(row), row);
  return rows;
}

/** A row that a foreign key guarantees; its absence is a broken database, not a client error. */
export async function existing<Row>(row: Promise<Row | null>, what: string): Promise<Row> {
  const found = await row;
  if (found === null) throw new Error(`${what} is missing`);
  return found;
}
