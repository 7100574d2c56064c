import { DomainError } from '../errors/catalogue.js';
import { notFound, type Resource } from './not-found.js';

/** Some versions of a resource: `*`, any (that it exists), or these. */
export type Versions = '*' | readonly string[];

/**
 * What a conditional write requires of the version of what it changes: one of `Versions` (REST's
 * `If-Match` may list several, GraphQL's `ifVersion` is one), or, with `noneMatch`, none of those
 * (REST's `If-None-Match` on a PUT, PATCH or DELETE: `*` writes only where the resource does not
 * exist), after `match` if given. A version is a counter that every write of the row bumps, shown
 * to callers as its decimal string: GraphQL's `version`, and REST's `ETag` in quotes.
 */
export type IfVersion = Versions | { readonly match?: Versions; readonly noneMatch: Versions };

/** The version as callers see it. */
export const versionOf = (row: { version: number }): string => String(row.version);

/** PRECONDITION_FAILED, with the version that is current (REST sends it as the ETag). */
export class PreconditionFailed extends DomainError {
  /** `what`: the resource as a message names it, e.g. `Pet 42`. */
  constructor(
    what: string,
    readonly currentVersion: string,
    message = `${what} has changed: its version is now ${currentVersion}, not the one given; read it again and reapply the change`,
  ) {
    super('PRECONDITION_FAILED', message);
  }
}

const names: Record<Resource, string> = { pet: 'Pet', category: 'Category', order: 'Order' };

const matches = (version: number, versions: Versions) =>
  versions === '*' || versions.includes(String(version));

/** Throws PRECONDITION_FAILED unless the row's version satisfies the condition. */
function check(row: { version: number }, condition: IfVersion | undefined, what: string): void {
  if (condition === undefined) return;
  const current = versionOf(row);
  if (typeof condition === 'object' && 'noneMatch' in condition) {
    check(row, condition.match, what);
    if (matches(row.version, condition.noneMatch)) {
      const named = condition.noneMatch === '*' ? 'exists' : `is at version ${current}`;
      throw new PreconditionFailed(
        what,
        current,
        `${what} ${named}, and If-None-Match asks to write only where it does not; read it, then send If-Match with its version`,
      );
    }
    return;
  }
  if (!matches(row.version, condition)) throw new PreconditionFailed(what, current);
}

/** Reads before giving up when others keep changing a row between a read and the write. */
const MAX_ATTEMPTS = 20;

/**
 * A write to one row that relies on what was read of it, atomically: `read` loads the row (none:
 * the resource's 404), and `write` changes it only where its version is still the one read (an
 * `UPDATE … WHERE id = ? AND version = ?`), answering undefined when that changed nothing because
 * someone else wrote in between. A caller holding a version then gets PRECONDITION_FAILED (of any
 * number of writers holding the same version, exactly one gets through); without one, the row is
 * read again and the write retried. Run it in a transaction, with `write`'s other statements.
 */
export async function writeVersioned<Row extends { version: number }, T>(
  target: {
    /** Whose 404 a missing row is, under which id. */
    resource: Resource;
    id: bigint;
    ifVersion: IfVersion | undefined;
    /** How messages name it, when not `Pet 42`. */
    name?: string;
  },
  read: () => Promise<Row | null>,
  write: (row: Row) => Promise<T | undefined>,
): Promise<T> {
  const { resource, id, ifVersion } = target;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const row = (await read()) ?? notFound(resource, id);
    check(row, ifVersion, target.name ?? `${names[resource]} ${id}`);
    const written = await write(row);
    if (written !== undefined) return written;
  }
  throw new Error(`${resource} ${id} kept changing under ${MAX_ATTEMPTS} attempts to write it`);
}

/** Prisma's data for "the next version". */
export const nextVersion = { increment: 1 } as const;

/**
 * What a conditional write (an `updateMany` or `deleteMany` where the version is still the one
 * read) did, as a store answers it: `written` when it changed a row, 'stale' when it changed none
 * because someone wrote in between (`writeVersioned` then reads again).
 */
export async function writtenOrStale<const T>(
  write: PromiseLike<{ count: number }>,
  written: T,
): Promise<T | 'stale'> {
  return (await write).count === 0 ? 'stale' : written;
}
