import { validationFailed } from '../domain/errors.js';
import { type Page, pageOffset, pageSize } from '../domain/paging.js';

/** `limit` (1-100, default 20) and `offset` (0 or more) as a page of a list ordered by id. */
export function pageOf(query: { limit?: string | undefined; offset?: string | undefined }): Page {
  return {
    take: pageSize(queryInteger(query.limit), 'limit', 1),
    skip: pageOffset(queryInteger(query.offset), 'offset'),
  };
}

/** A decimal integer, or NaN (which the paging checks reject, naming the parameter). */
function queryInteger(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return /^-?[0-9]+$/.test(value) ? Number(value) : Number.NaN;
}

export function queryBoolean(value: string | undefined, field: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw validationFailed(`${field} must be true or false`);
}
