import DataLoader from 'dataloader';
import { keyedLoader } from '../db/keyed-loader.js';
import type { SharedRead, SharedReads } from '../db/shared-reads.js';
import type { DomainContext } from '../domain/context.js';
import type { Page } from '../domain/paging.js';
import { orderCountsByPet, orderPagesByPet, ordersByIds } from '../orders/rules.js';
import { petCountsByCategory, petPagesByCategory } from '../pets/rules.js';
import type { Loaders, PetsOfCategory } from './kit/loaders.js';

export interface LoaderOptions {
  /** Keep what was read for the rest of the operation (queries); mutations change it, so they don't. */
  cache: boolean;
}

/** Rows grouped by their parent's key, in the order read. */
function groupBy<Row>(rows: Row[], parentOf: (row: Row) => bigint): Map<bigint, Row[]> {
  const groups = new Map<bigint, Row[]>();
  for (const row of rows) {
    const parent = parentOf(row);
    const group = groups.get(parent);
    if (group) group.push(row);
    else groups.set(parent, [row]);
  }
  return groups;
}

/**
 * One loader per distinct set of arguments (a page, a filter): the parents asked for with the
 * same arguments in a tick share one statement.
 */
function perArguments<Args, Value>(
  create: (args: Args) => DataLoader<bigint, Value>,
): (args: Args) => DataLoader<bigint, Value> {
  const loaders = new Map<string, DataLoader<bigint, Value>>();
  return (args) => {
    const key = JSON.stringify(args, (_key, value) =>
      typeof value === 'bigint' ? String(value) : value,
    );
    let loader = loaders.get(key);
    if (!loader) {
      loader = create(args);
      loaders.set(key, loader);
    }
    return loader;
  };
}

/** The rows of `keys` read with the other requests' (src/db/shared-reads.ts), in the order asked. */
async function through<Row>(shared: SharedRead<Row>, keys: readonly bigint[]) {
  const found = await shared.many(keys);
  const rows: Row[] = [];
  for (const key of keys) {
    const row = found.get(key);
    if (row !== undefined) rows.push(row);
  }
  return rows;
}

type RowOf<Read> = Read extends SharedRead<infer Row> ? Row : never;
type PetRow = RowOf<SharedReads['pets']>;
type CategoryRow = RowOf<SharedReads['categories']>;
type InventoryRow = RowOf<SharedReads['inventory']>;
type OrderRow = Awaited<ReturnType<typeof ordersByIds>>[number];
type PetOfCategory = Awaited<ReturnType<typeof petPagesByCategory>>[number];
type OrderOfPet = Awaited<ReturnType<typeof orderPagesByPet>>[number];

/**
 * The request's loaders (what they are: src/graphql/kit/loaders.ts), made of the stores' reads
 * through the resources' rules (a scope, a status) and of the shared reads by id. Made fresh for
 * each operation with its caller's domain context: nothing cached here outlives it or reaches
 * another caller. Each is made when a resolver first asks for it: a point read makes one, not
 * nine.
 */
class OperationLoaders implements Loaders {
  #pet?: DataLoader<bigint, PetRow | null>;
  #category?: DataLoader<bigint, CategoryRow | null>;
  #inventory?: DataLoader<bigint, InventoryRow | null>;
  #order?: DataLoader<bigint, OrderRow | null>;
  #petsOfCategory?: (args: PetsOfCategory) => DataLoader<bigint, PetOfCategory[]>;
  #petCountOfCategory?: (status: string | null | undefined) => DataLoader<bigint, number>;
  #ordersOfPet?: (page: Page) => DataLoader<bigint, OrderOfPet[]>;
  #orderCountOfPet?: DataLoader<bigint, number>;

  constructor(
    private readonly domain: DomainContext,
    private readonly shared: SharedReads,
    private readonly options: LoaderOptions,
  ) {}

  get pet() {
    this.#pet ??= keyedLoader(
      (ids) => through(this.shared.pets, ids),
      (pet) => pet.id,
      this.options,
    );
    return this.#pet;
  }

  get category() {
    this.#category ??= keyedLoader(
      (ids) => through(this.shared.categories, ids),
      (category) => category.id,
      this.options,
    );
    return this.#category;
  }

  get inventory() {
    this.#inventory ??= keyedLoader(
      (ids) => through(this.shared.inventory, ids),
      (item) => item.petId,
      this.options,
    );
    return this.#inventory;
  }

  get order() {
    this.#order ??= keyedLoader(
      (ids) => ordersByIds(this.domain, ids),
      (order) => order.id,
      this.options,
    );
    return this.#order;
  }

  get petsOfCategory() {
    this.#petsOfCategory ??= perArguments(
      ({ status, page }: PetsOfCategory) =>
        new DataLoader(async (categoryIds: readonly bigint[]) => {
          const pets = await petPagesByCategory(this.domain, categoryIds, status, page);
          const groups = groupBy(pets, (pet) => pet.categoryId);
          return categoryIds.map((id) => groups.get(id) ?? []);
        }, this.options),
    );
    return this.#petsOfCategory;
  }

  get petCountOfCategory() {
    this.#petCountOfCategory ??= perArguments(
      (status: string | null | undefined) =>
        new DataLoader(async (categoryIds: readonly bigint[]) => {
          const counts = await petCountsByCategory(this.domain, categoryIds, status);
          return categoryIds.map((id) => counts.get(id) ?? 0);
        }, this.options),
    );
    return this.#petCountOfCategory;
  }

  get ordersOfPet() {
    this.#ordersOfPet ??= perArguments(
      (page: Page) =>
        new DataLoader(async (petIds: readonly bigint[]) => {
          const groups = groupBy(await orderPagesByPet(this.domain, petIds, page), (o) => o.petId);
          return petIds.map((id) => groups.get(id) ?? []);
        }, this.options),
    );
    return this.#ordersOfPet;
  }

  get orderCountOfPet() {
    this.#orderCountOfPet ??= new DataLoader(async (petIds: readonly bigint[]) => {
      const counts = await orderCountsByPet(this.domain, petIds);
      return petIds.map((id) => counts.get(id) ?? 0);
    }, this.options);
    return this.#orderCountOfPet;
  }
}

export function createLoaders(
  domain: DomainContext,
  shared: SharedReads,
  options: LoaderOptions = { cache: true },
): Loaders {
  return new OperationLoaders(domain, shared, options);
}
