import type { z } from '@hono/zod-openapi';
import {
  clipText,
  type DomainError,
  type ErrorBounds,
  validationFailed,
} from '../../errors/catalogue.js';
import { ignoredProperties } from './schemas.js';

export type Location = 'path' | 'query' | 'body';

/**
 * Checks a request part against its schema; a mismatch is VALIDATION_FAILED naming each field, and
 * at most `bounds.errorListItems` unknown properties (saying how many more).
 */
export function check<T extends z.ZodType>(
  schema: T,
  value: unknown,
  where: Location,
  bounds: ErrorBounds,
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalid(schema, result.error.issues, value, where, bounds);
}

function invalid(
  schema: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
  value: unknown,
  where: Location,
  bounds: ErrorBounds,
): DomainError {
  // Unknown properties first: they usually explain the other issues (a misspelt field).
  const ordered = [...issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
  const messages = ordered.map((issue) => describe(schema, issue, value, where, bounds));
  return validationFailed([...new Set(messages)].join('; '));
}

/**
 * At most `errorListItems` names, each cut to its share of a message, and how many more there were:
 * `"a", "b" and 1985 more`.
 */
function listed(keys: readonly string[], { errorListItems, errorMessageBytes }: ErrorBounds) {
  const share = Math.max(16, Math.floor(errorMessageBytes / (2 * errorListItems)));
  const shown = keys.slice(0, errorListItems).map((key) => `"${clipText(key, share, '…')}"`);
  const more = keys.length - shown.length;
  return `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

const nouns: Record<Location, [string, string]> = {
  path: ['path parameter', 'path parameters'],
  query: ['query parameter', 'query parameters'],
  body: ['property', 'properties'],
};

function describe(
  schema: z.ZodType,
  issue: z.core.$ZodIssue,
  value: unknown,
  where: Location,
  bounds: ErrorBounds,
): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = listed(issue.keys, bounds);
    const noun = nouns[where][issue.keys.length > 1 ? 1 : 0];
    // The properties the caller can set (the ignored ones are accepted too, but set nothing).
    const ignored = ignoredProperties(schema);
    const settable = 'shape' in schema ? Object.keys(schema.shape as object) : [];
    const allowed =
      settable.length > 0
        ? `; allowed: ${settable.filter((key) => !ignored.includes(key)).join(', ')}`
        : '';
    return `Unknown ${noun} ${keys}${allowed}`;
  }
  const field = issue.path.map(String).join('.') || 'The request body';
  if (valueAt(value, issue.path) === undefined) return `${field} is required`;
  return `${field} ${issue.message}`;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key))
      return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
