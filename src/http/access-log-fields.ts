import type { AccessLogFields } from './env.js';

/**
 * Notes an error code the answer carries on the request's access line (`code`: the distinct codes,
 * comma-separated, as a batch or a partial GraphQL result may carry several).
 */
export function noteErrorCode(fields: AccessLogFields | undefined, code: unknown): void {
  if (!fields || typeof code !== 'string') return;
  if (fields.code === undefined) fields.code = code;
  else if (!fields.code.split(',').includes(code)) fields.code = `${fields.code},${code}`;
}
