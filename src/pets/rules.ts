import * as categories from '../categories/store.js';
import type { Queries } from '../db/transaction.js';
import { requireScope } from '../domain/authorization.js';
import type { Change } from '../domain/changes.js';
import type { DomainContext } from '../domain/context.js';
import { parseId } from '../domain/ids.js';
import type { Page } from '../domain/paging.js';
import { requiredText } from '../domain/validation.js';
import { type IfVersion, writeVersioned } from '../domain/versions.js';
import { writeReporting } from '../domain/write.js';
import { DomainError, validationFailed } from '../errors/catalogue.js';
import * as inventory from '../inventory/store.js';
import * as orders from '../orders/store.js';
import { domainOperation } from '../tracing/hooks.js';
import * as store from './store.js';

export const petStatuses = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof petStatuses)[number];

export interface PetInput {
  name: string;
  categoryId: unknown;
  status?: string | null | undefined;
}

export interface PetFilter {
  status?: string | null | undefined;
  categoryId?: unknown;
}

export function parseStatus(value: string, field = 'status'): PetStatus {
  if (!(petStatuses as readonly string[]).includes(value)) {
    throw validationFailed(`${field} must be one of ${petStatuses.join(', ')}`);
  }
  return value as PetStatus;
}

const optionalStatus = (status: string | null | undefined) =>
  status == null ? undefined : parseStatus(status);

function selected(filter: PetFilter): store.PetSelection {
  return {
    status: optionalStatus(filter.status),
    categoryId: filter.categoryId == null ? undefined : parseId(filter.categoryId, 'categoryId'),
  };
}

export const listPets = domainOperation(
  'listPets',
  function listPets(ctx: DomainContext, filter: PetFilter, page: Page) {
    return store.petPage(ctx.db, selected(filter), page);
  },
);

/** One page of pets (of `status`, when given) for each category, in one statement. */
export function petPagesByCategory(
  ctx: DomainContext,
  categoryIds: readonly bigint[],
  status: string | null | undefined,
  page: Page,
) {
  return store.petPagesByCategory(ctx.db, categoryIds, optionalStatus(status), page);
}

/** How many pets (of `status`, when given) each category has, in one statement. */
export function petCountsByCategory(
  ctx: DomainContext,
  categoryIds: readonly bigint[],
  status: string | null | undefined,
) {
  return store.petCountsByCategory(ctx.db, categoryIds, optionalStatus(status));
}

export const countPets = domainOperation(
  'countPets',
  function countPets(ctx: DomainContext, filter: PetFilter) {
    return store.countPets(ctx.db, selected(filter));
  },
);

async function checkedInput(db: Queries, input: PetInput): Promise<store.PetData> {
  const name = requiredText(input.name, 'name', 100);
  const categoryId = parseId(input.categoryId, 'categoryId');
  const status = optionalStatus(input.status);
  if (!(await categories.categoryExists(db, categoryId))) throw unknownCategory(categoryId);
  return { name, categoryId, status };
}

/** Creates a pet with its inventory item (quantity 0); status defaults to available. */
export const createPet = domainOperation(
  'createPet',
  async function createPet(ctx: DomainContext, input: PetInput) {
    requireScope(ctx.viewer, 'pets:write');
    const data = await checkedInput(ctx.db, input);
    return writeReporting(
      ctx,
      async (tx) => {
        const pet = await store.insertPet(tx, data);
        // The category was deleted between the check and the write.
        if (pet === 'unknown category') throw unknownCategory(data.categoryId);
        await inventory.insertItem(tx, pet.id);
        return pet;
      },
      (pet) => [
        { entity: 'pet', kind: 'created', id: pet.id },
        { entity: 'inventory', kind: 'created', petId: pet.id },
      ],
    );
  },
);

/**
 * Replaces a pet's name, category and status; an omitted status keeps the current one. With
 * `ifVersion`, only while the pet is still at one of those versions (else PRECONDITION_FAILED).
 * A change of status is a change of the inventory item too (it shows the status): its version is
 * bumped with the pet's.
 */
export const updatePet = domainOperation(
  'updatePet',
  async function updatePet(
    ctx: DomainContext,
    rawId: unknown,
    input: PetInput,
    ifVersion?: IfVersion,
  ) {
    requireScope(ctx.viewer, 'pets:write');
    const id = parseId(rawId, 'id');
    const { pet } = await writeReporting(
      ctx,
      (tx) =>
        writeVersioned(
          { resource: 'pet', id, ifVersion },
          () => store.petById(tx, id),
          async (before) => {
            const data = await checkedInput(tx, input);
            const pet = await store.updatePetIfVersion(tx, before, data);
            if (pet === 'stale') return undefined;
            if (pet === 'unknown category') throw unknownCategory(data.categoryId);
            const statusChanged = pet.status !== before.status;
            if (statusChanged) await inventory.bumpItemVersion(tx, id);
            return { pet, statusChanged };
          },
        ),
      ({ statusChanged }) => {
        const changes: Change[] = [{ entity: 'pet', kind: 'updated', id }];
        // The inventory item shows the pet's status.
        if (statusChanged) changes.push({ entity: 'inventory', kind: 'updated', petId: id });
        return changes;
      },
    );
    return pet;
  },
);

/** Deletes a pet that has no orders, with its inventory item; with `ifVersion`, as updatePet. */
export const deletePet = domainOperation(
  'deletePet',
  async function deletePet(
    ctx: DomainContext,
    rawId: unknown,
    ifVersion?: IfVersion,
  ): Promise<bigint> {
    requireScope(ctx.viewer, 'pets:write');
    const id = parseId(rawId, 'id');
    const hasOrders = () =>
      new DomainError('PET_HAS_ORDERS', `Pet ${id} has orders and cannot be deleted`);
    await writeReporting(
      ctx,
      (tx) =>
        writeVersioned(
          { resource: 'pet', id, ifVersion },
          () => store.petById(tx, id),
          async (before) => {
            if (await orders.petHasOrders(tx, id)) throw hasOrders();
            const deleted = await store.deletePetIfVersion(tx, id, before.version);
            // 'has orders': an order placed between the check and the delete.
            if (deleted === 'has orders') throw hasOrders();
            return deleted === 'deleted' ? id : undefined;
          },
        ),
      () => [
        { entity: 'pet', kind: 'deleted', id },
        { entity: 'inventory', kind: 'deleted', petId: id },
      ],
    );
    return id;
  },
);

function unknownCategory(categoryId: bigint): DomainError {
  return new DomainError('UNKNOWN_CATEGORY', `categoryId ${categoryId} names no existing category`);
}
