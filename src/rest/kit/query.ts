import { type Page, pageOffset, pageSize } from '../../domain/paging.js';
import { validationFailed } from '../../errors/catalogue.js';

/** `limit` (1-100, default 20) and `offset` (0 or more) as a page of a list ordered by id. */
export function pageOf(query: { limit?: string | undefined; offset?: string | undefined }): Page {
  return {
    take: pageSize(queryInteger(query.limit, 'limit'), 'limit', 1),
    skip: pageOffset(queryInteger(query.offset, 'offset'), 'offset'),
  };
}

/**
 * A decimal integer (the range is the paging rule's). Digits alone: `1e2`, `1.0` and ` 1` are
 * refused here, and a number too long to be exact is simply too large.
 */
function queryInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?[0-9]+$/.test(value))
    throw validationFailed(
      `${name} must be a whole number written in digits, not "${value.slice(0, 40)}"`,
    );
  return Number(value);
}

export function queryBoolean(value: string | undefined, field: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw validationFailed(`${field} must be true or false`);
}
