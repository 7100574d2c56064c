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

/**
 * The deepest nesting of arrays and objects a body may have. The bodies of this API are two levels
 * deep; lossless-json recurses once per level, so valid JSON nested some thousands deep (a 100 KiB
 * body holds 51,000 levels) would overflow the stack.
 */
export const MAX_JSON_DEPTH = 64;

/** Valid or not, the text nests arrays and objects deeper than MAX_JSON_DEPTH. */
export class JsonTooDeepError extends Error {
  override name = 'JsonTooDeepError';
  constructor() {
    super(`nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects`);
  }
}

/** Whether brackets and braces outside strings nest deeper than `limit`; one pass, no recursion. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i++; // a backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > limit) return true;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return false;
}

/**
 * Parses JSON text; throws a SyntaxError when it is not JSON, and a JsonTooDeepError when it nests
 * deeper than MAX_JSON_DEPTH (checked before parsing, so the parser never runs out of stack).
 */
export function parseJson(text: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new JsonTooDeepError();
  try {
    return parse(text, null, parseNumber);
  } catch (error) {
    // Out of stack anyway (a nearly full stack): still a matter of depth, not of syntax.
    if (error instanceof RangeError) throw new JsonTooDeepError();
    throw error;
  }
}

/** Writes JSON with bigints as plain JSON numbers, every digit exact. */
export function stringifyJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('the value has no JSON representation');
  return text;
}
