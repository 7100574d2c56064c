import { requireScope } from '../domain/authorization.js';
import type { DomainContext } from '../domain/context.js';
import { parseId } from '../domain/ids.js';
import { optionalText, requiredText } from '../domain/validation.js';
import { type IfVersion, writeVersioned } from '../domain/versions.js';
import { writeReporting } from '../domain/write.js';
import { DomainError } from '../errors/catalogue.js';
import * as pets from '../pets/store.js';
import { domainOperation } from '../tracing/hooks.js';
import * as store from './store.js';

export interface CategoryInput {
  name: string;
  description?: string | null | undefined;
}

function categoryData(input: CategoryInput): store.CategoryData {
  const name = requiredText(input.name, 'name', 100);
  return {
    name,
    nameKey: name.toLowerCase(),
    description: optionalText(input.description, 'description', 500),
  };
}

export const getCategory = domainOperation(
  'getCategory',
  function getCategory(ctx: DomainContext, rawId: unknown) {
    return store.categoryById(ctx.db, parseId(rawId, 'id'));
  },
);

export const listCategories = domainOperation(
  'listCategories',
  function listCategories(ctx: DomainContext) {
    return store.allCategories(ctx.db);
  },
);

export const countCategories = domainOperation(
  'countCategories',
  function countCategories(ctx: DomainContext) {
    return store.countCategories(ctx.db);
  },
);

export const createCategory = domainOperation(
  'createCategory',
  async function createCategory(ctx: DomainContext, input: CategoryInput) {
    requireScope(ctx.viewer, 'pets:write');
    const data = categoryData(input);
    return writeReporting(
      ctx,
      async (tx) => {
        const category = await store.insertCategory(tx, data);
        if (category === 'name taken') throw nameTaken(data.name);
        return category;
      },
      (category) => [{ entity: 'category', kind: 'created', id: category.id }],
    );
  },
);

/**
 * Replaces a category's name and description (an omitted description is cleared). With
 * `ifVersion`, only while the category is still at one of those versions (else
 * PRECONDITION_FAILED).
 */
export const updateCategory = domainOperation(
  'updateCategory',
  async function updateCategory(
    ctx: DomainContext,
    rawId: unknown,
    input: CategoryInput,
    ifVersion?: IfVersion,
  ) {
    requireScope(ctx.viewer, 'pets:write');
    const id = parseId(rawId, 'id');
    const data = categoryData(input);
    return writeReporting(
      ctx,
      (tx) =>
        writeVersioned(
          { resource: 'category', id, ifVersion },
          () => store.categoryById(tx, id),
          async (before) => {
            const category = await store.updateCategoryIfVersion(tx, before, data);
            if (category === 'stale') return undefined;
            if (category === 'name taken') throw nameTaken(data.name);
            return category;
          },
        ),
      () => [{ entity: 'category', kind: 'updated', id }],
    );
  },
);

/** Deletes a category that has no pets; with `ifVersion`, as updateCategory. */
export const deleteCategory = domainOperation(
  'deleteCategory',
  async function deleteCategory(
    ctx: DomainContext,
    rawId: unknown,
    ifVersion?: IfVersion,
  ): Promise<bigint> {
    requireScope(ctx.viewer, 'pets:write');
    const id = parseId(rawId, 'id');
    const inUse = () =>
      new DomainError(
        'CATEGORY_IN_USE',
        `Category ${id} still has pets; move or delete them first`,
      );
    await writeReporting(
      ctx,
      (tx) =>
        writeVersioned(
          { resource: 'category', id, ifVersion },
          () => store.categoryById(tx, id),
          async (before) => {
            if (await pets.categoryHasPets(tx, id)) throw inUse();
            const deleted = await store.deleteCategoryIfVersion(tx, id, before.version);
            // 'has pets': a pet created between the check and the delete.
            if (deleted === 'has pets') throw inUse();
            return deleted === 'deleted' ? id : undefined;
          },
        ),
      () => [{ entity: 'category', kind: 'deleted', id }],
    );
    return id;
  },
);

function nameTaken(name: string): DomainError {
  return new DomainError('CATEGORY_NAME_TAKEN', `A category named "${name}" already exists`);
}
