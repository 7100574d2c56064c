import { createTestApp, type TestApp } from './app.js';

export interface Replicas {
  a: TestApp;
  b: TestApp;
  close(): Promise<void>;
}

/** Two apps on one database (one PostgreSQL schema, or one SQLite file), as two replicas. */
export async function startReplicas(env: Record<string, string>): Promise<Replicas> {
  const a = await createTestApp(env);
  const b = await createTestApp({
    ...env,
    DATABASE_URL: a.config.database.url,
    // Tokens minted by `a` must be valid on `b`.
    AUTH_JWT_SECRET: a.secret,
  });
  return {
    a,
    // Requests to `b` carry `a`'s all-scopes token unless told otherwise.
    b: { ...b, authorization: a.authorization, token: a.token },
    close: async () => {
      await b.close();
      await a.close();
    },
  };
}
