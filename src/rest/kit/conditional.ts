import type { Context } from 'hono';
import type { IfVersion, Versions } from '../../domain/versions.js';
import { validationFailed } from '../../errors/catalogue.js';

/** One list member of `If-Match`: an entity tag, weak or strong, and the comma after it. */
const member = /\s*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?\s*(?:,|$)/y;

/**
 * The versions `If-Match` accepts (RFC 9110 §13.1.1): `*` (the resource must exist) or a list of
 * entity tags, compared strongly, so a weak tag (`W/"3"`) never matches. Undefined without the
 * header; a value that is not entity tags is 400.
 */
function parseIfMatch(header: string | undefined): Versions | undefined {
  return parseTags(header, 'If-Match', false);
}

/**
 * `*` or the entity tags of a header: with `weak`, a weak tag names its version too (the weak
 * comparison of `If-None-Match`, RFC 9110 §13.1.2).
 */
function parseTags(header: string | undefined, name: string, weak: boolean): Versions | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  const versions: string[] = [];
  let tags = 0;
  member.lastIndex = 0;
  while (member.lastIndex < value.length) {
    const start = member.lastIndex;
    const match = member.exec(value);
    if (!match || member.lastIndex === start) break;
    if (match[2] === undefined) continue;
    tags++;
    if (weak || !match[1]) versions.push(match[2]);
  }
  if (member.lastIndex < value.length || tags === 0) {
    throw validationFailed(
      `${name} must be * or a comma-separated list of entity tags, e.g. "3" as sent in ETag`,
    );
  }
  return versions;
}

/**
 * The conditions of a write to one resource (PUT, PATCH, DELETE): `If-Match`, then
 * `If-None-Match` (RFC 9110 §13.2.2): `*` there refuses to write over a resource that exists (no
 * write here creates one), a list of tags over those versions (412 either way).
 */
export function writeConditions(c: Context): IfVersion | undefined {
  const match = parseIfMatch(c.req.header('if-match'));
  const noneMatch = parseTags(c.req.header('if-none-match'), 'If-None-Match', true);
  if (noneMatch === undefined) return match;
  return match === undefined ? { noneMatch } : { match, noneMatch };
}
