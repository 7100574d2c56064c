import { isPrismaError } from '../db/errors.js';
import { requireScope } from '../domain/authorization.js';
import type { DomainContext } from '../domain/context.js';
import { parseId } from '../domain/ids.js';
import { optionalText, requiredText } from '../domain/validation.js';
import { type IfVersion, nextVersion, writeVersioned } from '../domain/versions.js';
import { writeReporting } from '../domain/write.js';
import { DomainError } from '../errors/catalogue.js';
import { domainOperation } from '../tracing/hooks.js';
import * as store from './store.js';

export interface CategoryInput {
  name: string;
  description?: string | null | undefined;
}

function categoryData(input: CategoryInput) {
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
        try {
          return await tx.category.create({ data });
        } catch (error) {
          throw nameTaken(error, data.name);
        }
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
          () => tx.category.findUnique({ where: { id } }),
          async (before) => {
            try {
              const { count } = await tx.category.updateMany({
                where: { id, version: before.version },
                data: { ...data, version: nextVersion },
              });
              if (count === 0) return undefined;
            } catch (error) {
              throw nameTaken(error, data.name);
            }
            return { ...before, ...data, version: before.version + 1 };
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
          () => tx.category.findUnique({ where: { id }, select: { version: true } }),
          async (before) => {
            if (await tx.pet.findFirst({ where: { categoryId: id }, select: { id: true } }))
              throw inUse();
            try {
              const { count } = await tx.category.deleteMany({
                where: { id, version: before.version },
              });
              return count === 0 ? undefined : id;
            } catch (error) {
              // A pet created between the check and the delete.
              if (isPrismaError(error, 'P2003')) throw inUse();
              throw error;
            }
          },
        ),
      () => [{ entity: 'category', kind: 'deleted', id }],
    );
    return id;
  },
);

function nameTaken(error: unknown, name: string): unknown {
  return isPrismaError(error, 'P2002')
    ? new DomainError('CATEGORY_NAME_TAKEN', `A category named "${name}" already exists`)
    : error;
}
