import type { IfVersion } from '../../domain/versions.js';
import { versionOf } from '../../domain/versions.js';

/**
 * The description of a `version: String!` field: the same value as the REST ETag, without its
 * quotes.
 */
export const versionDescription = (what: string) =>
  `Changes whenever the ${what} does; send it as \`ifVersion\` to write over this version only. REST's ETag, unquoted.`;

/** The resolver of a `version` field. */
export const resolveVersion = (row: { version: number }) => versionOf(row);

/** The description of an `ifVersion` argument. */
export const ifVersionDescription = (what: string) =>
  `Only while the ${what}'s \`version\` is still this (else PRECONDITION_FAILED, nothing changes).`;

/** The domain's condition for an `ifVersion` argument. */
export const ifVersionOf = (value: string | null | undefined): IfVersion | undefined =>
  value == null ? undefined : [value];
