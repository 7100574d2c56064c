import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import {
  database,
  databaseAvailable,
  describeDb,
  type TestApp,
  useTestApp,
} from '../helpers/app.js';
import { graphqlRequest } from '../helpers/graphql.js';

/** Mutations run one after another: `count` createCategory calls in one document. */
function serialCreates(count: number, prefix: string): string {
  const fields = Array.from(
    { length: count },
    (_, i) => `m${i}: createCategory(input: { name: "${prefix} ${i}" }) { id }`,
  );
  return `mutation { ${fields.join(' ')} }`;
}

const postgresUrl = inject('postgresUrl');

/**
 * Counted on a connection of the test's own: the app's PostgreSQL connections carry its 1 ms
 * statement_timeout, which a count can exceed on a cold server.
 */
async function countCategories(app: TestApp, prefix: string) {
  const config = app.config.database;
  if (config.provider === 'sqlite') {
    return app.database.prisma.category.count({ where: { name: { startsWith: prefix } } });
  }
  const client = new pg.Client({ connectionString: postgresUrl ?? undefined });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      `SELECT count(*) FROM "${config.schema}"."Category" WHERE "name" LIKE $1`,
      [`${prefix}%`],
    );
    return Number(rows[0]?.count);
  } finally {
    await client.end();
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describeDb('the time limit stops the work, not only the wait', () => {
  // Enough mutations that running them all takes well over the limit even on a warm process
  // (SQLite inserts take some tens of microseconds), so the limit passes while they run.
  const mutations = 300;
  const app = useTestApp({
    REQUEST_TIMEOUT_MS: '1',
    GRAPHQL_MAX_ALIASES: String(mutations),
    GRAPHQL_MAX_TOKENS: String(mutations * 20),
    GRAPHQL_MAX_COST: String(mutations * 20),
  });

  it('answers 503 TIMEOUT and runs none of the mutations left when the limit passes', async () => {
    const response = await app().fetch(
      graphqlRequest(
        { query: serialCreates(mutations, 'Serial') },
        { authorization: app().authorization },
      ),
    );
    expect(response.status).toBe(503);
    expect((await response.json()).errors[0].extensions).toEqual({ code: 'TIMEOUT', status: 503 });

    await settle();
    const created = await countCategories(app(), 'Serial');
    expect(created).toBeLessThan(mutations);
    await settle();
    expect(await countCategories(app(), 'Serial')).toBe(created);
  });
});

// PostgreSQL only: a SQLite lock held elsewhere would block the whole process, not one request.
describe.runIf(database === 'postgresql' && databaseAvailable)(
  'a request stuck on the database',
  () => {
    const app = useTestApp({ REQUEST_TIMEOUT_MS: '500' });

    it('answers TIMEOUT near the limit while other requests are served, and goes no further', async () => {
      const config = app().config.database;
      const schema = config.provider === 'postgresql' ? config.schema : undefined;
      const locker = new pg.Client({ connectionString: postgresUrl ?? undefined });
      await locker.connect();
      try {
        // Holding this lock makes every insert into the table wait.
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE "${schema}"."Category" IN ACCESS EXCLUSIVE MODE`);

        const events: string[] = [];
        const stuck = app()
          .fetch(
            graphqlRequest(
              { query: serialCreates(3, 'Locked') },
              { authorization: app().authorization },
            ),
          )
          .then((response) => {
            events.push('graphql');
            return response;
          });
        await new Promise((resolve) => setTimeout(resolve, 50));
        const live = await app().fetch(new Request('http://petstore.test/health/live'));
        events.push('live');
        expect(live.status).toBe(200);

        const response = await stuck;
        expect(events).toEqual(['live', 'graphql']);
        expect(response.status).toBe(503);
        expect((await response.json()).errors[0].extensions).toEqual({
          code: 'TIMEOUT',
          status: 503,
        });
        // The statement does not outlive its request by more than the limit: PostgreSQL cancels
        // it (statement_timeout, counted from the statement's start, which on a busy machine can
        // come well after the request's).
        const waiting = async () =>
          (
            await locker.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE application_name = $1 AND wait_event_type = 'Lock'`,
              [schema],
            )
          ).rows[0].n;
        const answeredAt = performance.now();
        while ((await waiting()) > 0 && performance.now() - answeredAt < 600) {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        expect(await waiting()).toBe(0);
      } finally {
        await locker.query('COMMIT');
        await locker.end();
      }
      // The insert that was waiting was cancelled; the two mutations after it never started.
      await settle();
      expect(await countCategories(app(), 'Locked')).toBeLessThanOrEqual(1);
    });
  },
);
