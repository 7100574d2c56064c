import { validationFailed } from '../errors/catalogue.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** A page size from `first` (GraphQL, may be 0) or `limit` (REST, min 1); default 20, at most 100. */
export function pageSize(value: number | null | undefined, field: string, min = 0): number {
  if (value == null) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(value) || value < min || value > MAX_PAGE_SIZE) {
    throw validationFailed(`${field} must be an integer from ${min} to ${MAX_PAGE_SIZE}`);
  }
  return value;
}

/** The largest offset a list accepts: far beyond any list here, and an int32 for every client. */
export const MAX_PAGE_OFFSET = 2_147_483_647;

export function pageOffset(value: number | null | undefined, field: string): number {
  if (value == null) return 0;
  if (!Number.isInteger(value)) throw validationFailed(`${field} must be a whole number`);
  if (value < 0) throw validationFailed(`${field} must be 0 or more`);
  if (value > MAX_PAGE_OFFSET)
    throw validationFailed(`${field} must be at most ${MAX_PAGE_OFFSET}`);
  return value;
}

/** A page of a list ordered by id: after a cursor's id (GraphQL) or after an offset (REST). */
export interface Page {
  take: number;
  skip?: number | undefined;
  afterId?: bigint | undefined;
}

/** Prisma arguments for one page of a list ordered by `key` (the id), filtered by `where`. */
export function pageArgs<Key extends string, Where extends object>(
  page: Page,
  where: Where,
  key: Key,
) {
  return {
    where: page.afterId ? { ...where, [key]: { gt: page.afterId } } : where,
    orderBy: { [key]: 'asc' } as Record<Key, 'asc'>,
    take: page.take,
    skip: page.skip,
  };
}
