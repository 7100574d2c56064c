import type { Db } from '../db/client.js';

/** Who is calling: the verified token's subject and scopes, or an anonymous caller. */
export interface Viewer {
  readonly subject: string | undefined;
  readonly scopes: ReadonlySet<string>;
}

export const anonymous: Viewer = Object.freeze({ subject: undefined, scopes: new Set<string>() });

/** What every domain function needs: the database and the caller. */
export interface DomainContext {
  readonly db: Db;
  readonly viewer: Viewer;
}
