import { DomainError } from '../errors/catalogue.js';

/** The resources a path or an argument names by id. */
export type Resource = 'pet' | 'category' | 'order';

const notFoundCodes = {
  pet: ['PET_NOT_FOUND', 'Pet'],
  category: ['CATEGORY_NOT_FOUND', 'Category'],
  order: ['ORDER_NOT_FOUND', 'Order'],
} as const;

/** The 404 of a resource named by id that does not exist. */
export function notFoundError(resource: Resource, id: unknown): DomainError {
  const [code, name] = notFoundCodes[resource];
  return new DomainError(code, `${name} ${id} does not exist`);
}

/** Throws the resource's 404; `(await read) ?? notFound('pet', id)` reads by id or fails. */
export function notFound(resource: Resource, id: unknown): never {
  throw notFoundError(resource, id);
}
