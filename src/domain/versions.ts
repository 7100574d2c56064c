import { DomainError } from './errors.js';
import { notFound, type Resource } from './not-found.js';

/**
 * What a conditional write requires of the version of what it changes: `*`, that it exists, or one
 * of the versions the caller holds (REST's `If-Match` may list several, GraphQL's `ifVersion` is
 * one). A version is a counter that every write of the row bumps, shown to callers as its decimal
 * string: GraphQL's `version`, and REST's `ETag` in quotes.
 */
export type IfVersion = '*' | readonly string[];

/** The version as callers see it. */
export const versionOf = (row: { version: number }): string => String(row.version);

/** PRECONDITION_FAILED, with the version that is current (REST sends it as the ETag). */
export class PreconditionFailed extends DomainError {
  /** `what`: the resource as a message names it, e.g. `Pet 42`. */
  constructor(
    what: string,
    readonly currentVersion: string,
  ) {
    super(
      'PRECONDITION_FAILED',
      `${what} has changed: its version is now ${currentVersion}, not the one given; read it again and reapply the change`,
    );
  }
}

const names: Record<Resource, string> = { pet: 'Pet', category: 'Category', order: 'Order' };

function satisfies(version: number, condition: IfVersion | undefined): boolean {
  if (condition === undefined || condition === '*') return true;
  return condition.includes(String(version));
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
    if (!satisfies(row.version, ifVersion))
      throw new PreconditionFailed(target.name ?? `${names[resource]} ${id}`, versionOf(row));
    const written = await write(row);
    if (written !== undefined) return written;
  }
  throw new Error(`${resource} ${id} kept changing under ${MAX_ATTEMPTS} attempts to write it`);
}

/** Prisma's data for "the next version". */
export const nextVersion = { increment: 1 } as const;
