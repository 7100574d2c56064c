import { validationFailed } from '../errors/catalogue.js';

/** A JSON object (not an array, not null): what a request body or its parameters must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Trims a required text and checks its length; the stored value is the trimmed one. */
export function requiredText(value: string, field: string, maxLength: number): string {
  const text = value.trim();
  if (text.length < 1 || text.length > maxLength) {
    throw validationFailed(`${field} must be 1-${maxLength} characters (after trimming spaces)`);
  }
  return text;
}

/** An optional text: null or undefined means no value. */
export function optionalText(
  value: string | null | undefined,
  field: string,
  maxLength: number,
): string | null {
  if (value == null) return null;
  if (value.length > maxLength)
    throw validationFailed(`${field} must be at most ${maxLength} characters`);
  return value;
}

export function integerInRange(value: number, field: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw validationFailed(`${field} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** An optional instant; a string must be a date-time as `parseDateTime` reads it. */
export function optionalDateTime(
  value: Date | string | null | undefined,
  field: string,
): Date | null {
  if (value == null) return null;
  const date = typeof value === 'string' ? parseDateTime(value) : value;
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw validationFailed(`${field} ${DATE_TIME_RULE}`);
  }
  return date;
}

/** What `parseDateTime` accepts, as the end of a sentence naming the field. */
export const DATE_TIME_RULE =
  'must be an RFC 3339 date-time with an offset and a real calendar date, e.g. 2026-12-01T10:00:00Z';

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * The one date-time rule of both edges: RFC 3339's `date-time` (`T` or `t` between date and time,
 * `Z`, `z` or `±hh:mm` after it; a space is not accepted) naming a real calendar date and time.
 * A leap second (`:60`) is refused: an instant is stored to the millisecond and cannot hold it.
 * Fractions beyond milliseconds are cut. Undefined when the text is not such a date-time.
 */
export function parseDateTime(text: string): Date | undefined {
  const parts = DATE_TIME.exec(text);
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [, , , , , , , fraction, sign, offsetHours, offsetMinutes] = parts;
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    Number(offsetHours ?? 0) > 23 ||
    Number(offsetMinutes ?? 0) > 59
  ) {
    return undefined;
  }
  const offset = sign
    ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes))
    : 0;
  const millis = fraction ? Number(fraction.slice(1, 4).padEnd(3, '0')) : 0;
  // setUTCFullYear, unlike Date.UTC, keeps the years 0-99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offset, second, millis);
  return date;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
