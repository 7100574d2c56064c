import { validationFailed } from '../errors/catalogue.js';

export const MAX_ID = 9_223_372_036_854_775_807n;

/**
 * Parses an identifier from a path, argument or body: a decimal integer in 1..2^63-1, given as a
 * string, a safe integer number or a bigint. Anything else is VALIDATION_FAILED naming the field.
 */
export function parseId(value: unknown, field: string): bigint {
  let id: bigint | undefined;
  if (typeof value === 'bigint') id = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) id = BigInt(value);
  else if (typeof value === 'string' && /^[0-9]{1,19}$/.test(value)) id = BigInt(value);
  if (id === undefined || id < 1n || id > MAX_ID) {
    throw validationFailed(`${field} must be an integer id between 1 and ${MAX_ID}`);
  }
  return id;
}
