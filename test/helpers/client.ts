import type { App } from '../../src/app.js';

/** Who sends a request: an app's fetch handler, with the Authorization header to send if any. */
export type Client = Pick<App, 'fetch'> & { authorization?: string };

/** The same handler without a token: an anonymous caller. */
export function anonymous(app: Client): Client {
  return { fetch: app.fetch };
}

/** A caller with the given Authorization header value. */
export function withAuthorization(app: Client, authorization: string): Client {
  return { fetch: app.fetch, authorization };
}

/** The client's Authorization header, if it has one (test apps carry an all-scopes token). */
export function authorizationHeader(app: Client): Record<string, string> {
  return app.authorization ? { authorization: app.authorization } : {};
}
