import { validationFailed } from './errors.js';

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

/** An optional instant; a string must be RFC 3339 with a time zone offset. */
export function optionalDateTime(
  value: Date | string | null | undefined,
  field: string,
): Date | null {
  if (value == null) return null;
  const date =
    typeof value === 'string' && RFC3339.test(value)
      ? new Date(value)
      : value instanceof Date
        ? value
        : null;
  if (!date || Number.isNaN(date.getTime())) {
    throw validationFailed(
      `${field} must be an RFC 3339 date-time with offset, e.g. 2026-12-01T10:00:00Z`,
    );
  }
  return date;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
