import type { Db } from '../db/client.js';

/** Who is calling: the verified token's subject and scopes, or an anonymous caller. */
export interface Viewer {
  /** True when the request carried a valid token. */
  readonly authenticated: boolean;
  readonly subject: string | undefined;
  readonly scopes: ReadonlySet<string>;
}

export const anonymous: Viewer = Object.freeze({
  authenticated: false,
  subject: undefined,
  scopes: new Set<string>(),
});

/** What every domain function needs: the database and the caller. */
export interface DomainContext {
  readonly db: Db;
  readonly viewer: Viewer;
}
