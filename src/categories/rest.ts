import { z } from '@hono/zod-openapi';
import { parseId } from '../domain/ids.js';
import { notFound } from '../domain/not-found.js';
import { sendCreated, sendJson, sendNoContent, sendResource } from '../rest/kit/respond.js';
import { defineRoute } from '../rest/kit/route.js';
import { idParam, int64, name, serverAssignsIds, text } from '../rest/kit/schemas.js';
import { created, noContent, ok, one } from '../rest/kit/success.js';
import * as categories from './rules.js';

export const NewCategory = z
  .strictObject({
    id: serverAssignsIds(),
    // Not one of the sample data's categories: Swagger's "Try it out" succeeds as it is.
    name: name('Hamsters'),
    description: text().optional().openapi({
      maxLength: 500,
      description: 'At most 500 characters.',
      example: 'Small rodents',
    }),
  })
  .openapi('NewCategory', {
    description:
      'A category to create or the full replacement of one (an omitted `description` is ' +
      'cleared). Names are unique case-insensitively.',
  });

export const Category = z
  .strictObject({
    id: int64('The category id.'),
    name: text(),
    description: text().optional(),
  })
  .openapi('Category');

export function presentCategory(category: {
  id: bigint;
  name: string;
  description: string | null;
}): z.input<typeof Category> {
  const { id, name, description } = category;
  return description === null ? { id, name } : { id, name, description };
}

const categoryPath = z.object({ categoryId: idParam('categoryId', 'The category id.') });

/**
 * Every sample category has pets, so the examples of the writes name category 6: the one the
 * example of `POST /categories` creates on the sample data.
 */
const createdCategoryPath = z.object({
  categoryId: idParam('categoryId', 'The category id.', 6),
});

export const listCategories = defineRoute(
  {
    method: 'get',
    path: '/categories',
    operationId: 'listCategories',
    cache: { entity: 'category' },
    tag: 'categories',
    summary: 'List every category',
    description: 'All categories ordered by id, in one unpaged list.',
    success: ok(z.array(Category), 'Every category, ordered by id.'),
  },
  async (c, _input, { domain }) => {
    const rows = await categories.listCategories(domain);
    return sendJson(c, 200, rows.map(presentCategory));
  },
);

export const createCategory = defineRoute(
  {
    method: 'post',
    path: '/categories',
    operationId: 'createCategory',
    scope: 'pets:write',
    tag: 'categories',
    summary: 'Create a category',
    description:
      'The name is stored trimmed and must be unique case-insensitively (409 CATEGORY_NAME_TAKEN).',
    body: NewCategory,
    success: created(Category, 'The new category.'),
    errors: ['CATEGORY_NAME_TAKEN'],
  },
  async (c, { body }, { domain }) => {
    const category = await categories.createCategory(domain, body);
    return sendCreated(c, presentCategory(category), category);
  },
);

export const getCategory = defineRoute(
  {
    method: 'get',
    path: '/categories/{categoryId}',
    operationId: 'getCategory',
    cache: { entity: 'category', idParam: 'categoryId' },
    tag: 'categories',
    summary: 'Read a category',
    description: 'One category by id; 404 CATEGORY_NOT_FOUND when there is none.',
    params: categoryPath,
    success: one(Category, 'The category.'),
    errors: ['CATEGORY_NOT_FOUND'],
  },
  async (c, { params }, { domain }) => {
    const id = parseId(params.categoryId, 'categoryId');
    const category = (await categories.getCategory(domain, id)) ?? notFound('category', id);
    return sendResource(c, presentCategory(category), category);
  },
);

export const replaceCategory = defineRoute(
  {
    method: 'put',
    path: '/categories/{categoryId}',
    operationId: 'replaceCategory',
    scope: 'pets:write',
    tag: 'categories',
    summary: 'Replace a category',
    description:
      'A full replacement: an omitted `description` is cleared. The example id, 6, is the ' +
      'category the example of `POST /categories` creates on the sample data.',
    params: createdCategoryPath,
    body: NewCategory,
    success: one(Category, 'The category as replaced.'),
    errors: ['CATEGORY_NOT_FOUND', 'CATEGORY_NAME_TAKEN'],
  },
  async (c, { params, body, ifVersion }, { domain }) => {
    const id = parseId(params.categoryId, 'categoryId');
    const category = await categories.updateCategory(domain, id, body, ifVersion);
    return sendResource(c, presentCategory(category), category);
  },
);

export const deleteCategory = defineRoute(
  {
    method: 'delete',
    path: '/categories/{categoryId}',
    operationId: 'deleteCategory',
    scope: 'pets:write',
    tag: 'categories',
    summary: 'Delete a category',
    description:
      'A category that has pets cannot be deleted (409 `CATEGORY_IN_USE`), which holds for every ' +
      'sample category. The example id, 6, is the category the example of `POST /categories` ' +
      'creates, which has none.',
    params: createdCategoryPath,
    success: noContent('Deleted.'),
    errors: ['CATEGORY_NOT_FOUND', 'CATEGORY_IN_USE'],
  },
  async (c, { params, ifVersion }, { domain }) => {
    await categories.deleteCategory(domain, parseId(params.categoryId, 'categoryId'), ifVersion);
    return sendNoContent(c);
  },
);
