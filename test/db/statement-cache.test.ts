import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { database, databaseAvailable, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';

// Every compilation of SQL on the SQLite connections this file opens, by text. Installed before
// the app connects: the statement cache compiles through the prototype's `prepare`.
const compilations = new Map<string, number>();
const compile = BetterSqlite3.prototype.prepare;
BetterSqlite3.prototype.prepare = function (this: BetterSqlite3.Database, sql: string) {
  compilations.set(sql, (compilations.get(sql) ?? 0) + 1);
  return compile.call(this, sql);
} as typeof compile;
afterAll(() => {
  BetterSqlite3.prototype.prepare = compile;
});

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

describe.runIf(database === 'sqlite')('SQLITE_STATEMENT_CACHE_SIZE', () => {
  // Every read runs its statement (no response cache), and nothing else runs between them (no
  // usage recording, whose writes would take places in the cache).
  const app = useTestApp({
    SQLITE_STATEMENT_CACHE_SIZE: '4',
    RESPONSE_CACHE_TTL_MS: '0',
    USAGE_BUFFER_ENTRIES: '0',
  });

  const readPets = (ids: readonly bigint[]) => readPetsOf(app(), ids);

  /** The SQL texts compiled while `read` ran (which ran one statement). */
  async function textOf(read: () => Promise<unknown>): Promise<string[]> {
    const before = new Map(compilations);
    const statements = app().database.statementCount();
    await read();
    expect(app().database.statementCount()).toBe(statements + 1);
    return [...compilations].flatMap(([sql, times]) =>
      times > (before.get(sql) ?? 0) ? [sql] : [],
    );
  }

  it('keeps each statement compiled for its next run, and no more statements than the bound however many texts a client makes the server use', async () => {
    const pets = await Promise.all(Array.from({ length: 8 }, () => makePet(app())));
    const ids = pets.map((pet) => pet.id);
    const names = pets.map((pet) => pet.name);

    // Eight texts, one per list length: each compiled once, and every answer right.
    const texts: string[] = [];
    for (let count = 1; count <= 8; count++) {
      const compiled = await textOf(async () =>
        expect(await readPets(ids.slice(0, count))).toEqual(names.slice(0, count)),
      );
      expect(compiled).toHaveLength(1);
      texts.push(compiled[0] as string);
    }
    expect(new Set(texts).size).toBe(8);

    // The four used last are still compiled: run again (and right), nothing is compiled.
    for (let count = 8; count >= 5; count--)
      expect(
        await textOf(async () =>
          expect(await readPets(ids.slice(0, count))).toEqual(names.slice(0, count)),
        ),
      ).toEqual([]);
    // The others were let go at the bound: each is compiled again.
    expect(await textOf(() => readPets(ids.slice(0, 1)))).toEqual([texts[0]]);
    expect(compilations.get(texts[0] as string)).toBe(2);
  });

  it('asks a kept statement for the columns it returns once, not at every run', async () => {
    const pet = await makePet(app());
    // The prototype of better-sqlite3's statements, whose `columns` builds an object per column.
    const statements = Object.getPrototypeOf(new BetterSqlite3(':memory:').prepare('SELECT 1'));
    const columns = statements.columns;
    let asked = 0;
    statements.columns = function (this: unknown) {
      asked++;
      return columns.call(this);
    };
    try {
      // Compiled anew (makePet's statements pushed it out of the four kept): asked once.
      expect(await readPets([pet.id])).toEqual([pet.name]);
      const first = asked;
      expect(first).toBeGreaterThan(0);
      for (let run = 0; run < 3; run++) expect(await readPets([pet.id])).toEqual([pet.name]);
      expect(asked).toBe(first);
    } finally {
      statements.columns = columns;
    }
  });
});

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
