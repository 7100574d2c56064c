import type { SqlDialect } from '../db/client.js';
import type { RawSql } from '../db/raw-sql.js';
import type { Queries } from '../db/transaction.js';
import type { ChangeFeed } from './changes.js';

/** Who is calling: the verified token's subject and scopes, or an anonymous caller. */
export interface Viewer {
  /** True when the request carried a valid token. */
  readonly authenticated: boolean;
  readonly subject: string | undefined;
  readonly scopes: ReadonlySet<string>;
  /** When the token expires (ms since the epoch): a subscription ends then. */
  readonly expiresAt?: number | undefined;
}

export const anonymous: Viewer = Object.freeze({
  authenticated: false,
  subject: undefined,
  scopes: new Set<string>(),
});

/**
 * What every domain function needs: the database (Prisma's client, and raw SQL for the writes it
 * cannot express) and its SQL dialect, the caller, and where writes are reported. `db` and `sql`
 * are a transaction's when the whole request runs in one (src/idempotency/): the domain's own
 * transactions then join it, and `changes` holds the events until it commits.
 */
export interface DomainContext {
  readonly db: Queries;
  readonly sql: RawSql;
  readonly dialect: SqlDialect;
  readonly viewer: Viewer;
  readonly changes: ChangeFeed;
}
