import { hash } from 'node:crypto';

/** Public reads: any cache may keep them but must revalidate (If-None-Match) before reuse. */
export const PUBLIC_CACHE_CONTROL = 'no-cache';
/** Anything read with a token: never stored, never shared. */
export const PRIVATE_CACHE_CONTROL = 'private, no-store';

/** A strong validator of a body: the same bytes, the same tag. */
export function strongETag(body: string): string {
  return `"${hash('sha256', body, 'base64url').slice(0, 32)}"`;
}

/** Whether `If-None-Match` names the tag (weak comparison, as RFC 9110 asks of this header). */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
