import { isInteger, parse, stringify } from 'lossless-json';

/**
 * JSON for the REST edge, exact for int64 ids. `JSON.parse` rounds integers above 2^53 and
 * `JSON.stringify` cannot write a bigint; lossless-json reads and writes the digits as they are.
 */

/** Integers become numbers while exact and bigints beyond that; other numbers become doubles. */
function parseNumber(text: string): number | bigint {
  if (!isInteger(text)) return Number.parseFloat(text);
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
}

/** Parses JSON text; throws (SyntaxError or, for absurd nesting, RangeError) when it is not JSON. */
export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

/** Writes JSON with bigints as plain JSON numbers, every digit exact. */
export function stringifyJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('the value has no JSON representation');
  return text;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
