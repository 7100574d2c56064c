import { describe, expect, it } from 'vitest';
import { database, databaseAvailable, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';

type TestApp = ReturnType<ReturnType<typeof useTestApp>>;

/** `pet(id)` under n aliases: one read of n ids, whose SQL text has an `IN` list n long. */
async function readPetsOf(app: TestApp, ids: readonly bigint[]) {
  const fields = ids.map((id, at) => `p${at}: pet(id: "${id}") { name }`).join(' ');
  const response = await app.fetch(
    new Request('http://petstore.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ ${fields} }` }),
    }),
  );
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as { data: Record<string, { name: string }> };
  return ids.map((_, at) => data[`p${at}`]?.name);
}

describe.runIf(database === 'postgresql' && databaseAvailable)(
  'POSTGRES_STATEMENT_CACHE_SIZE',
  () => {
    // One connection, so that what it keeps prepared can be read on it.
    const app = useTestApp({
      DATABASE_POOL_SIZE: '1',
      POSTGRES_STATEMENT_CACHE_SIZE: '4',
      RESPONSE_CACHE_TTL_MS: '0',
      USAGE_BUFFER_ENTRIES: '0',
    });

    /** The statements the pool's connection keeps prepared, and how often each ran. */
    const prepared = () =>
      app().database.prisma.$queryRaw<{ statement: string; runs: number }[]>`
        SELECT "statement", ("generic_plans" + "custom_plans")::int AS "runs"
          FROM pg_prepared_statements WHERE "name" LIKE 'petstore\_%'`;

    it('prepares a statement once for its next runs, and no more statements than the bound however many texts a client makes the server use', async () => {
      const pets = await Promise.all(Array.from({ length: 8 }, () => makePet(app())));
      const ids = pets.map((pet) => pet.id);
      const names = pets.map((pet) => pet.name);
      // Eight texts, one per list length, twice: every answer right, named or not.
      for (const _ of [1, 2])
        for (let count = 1; count <= 8; count++)
          expect(await readPetsOf(app(), ids.slice(0, count))).toEqual(names.slice(0, count));

      const kept = await prepared();
      expect(kept).toHaveLength(4);
      expect(new Set(kept.map((row) => row.statement)).size).toBe(4);
      // Run again without being parsed again: the server planned the same statement twice or more.
      expect(kept.some((row) => row.runs >= 2)).toBe(true);
    });
  },
);
