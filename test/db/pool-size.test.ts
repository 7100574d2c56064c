import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { database, databaseAvailable, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import { rest } from '../helpers/rest.js';

const postgresUrl = inject('postgresUrl');

describe.runIf(database === 'postgresql' && databaseAvailable)('DATABASE_POOL_SIZE', () => {
  const app = useTestApp({ DATABASE_POOL_SIZE: '2' });

  it('bounds the connections one process opens, however many requests are in flight: the pool and the events reader', async () => {
    const config = app().config.database;
    const schema = config.provider === 'postgresql' ? config.schema : undefined;
    const pet = await makePet(app());
    const observer = new pg.Client({ connectionString: postgresUrl ?? undefined });
    await observer.connect();
    try {
      let most = 0;
      let done = false;
      const watching = (async () => {
        while (!done) {
          const { rows } = await observer.query(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
            [schema],
          );
          most = Math.max(most, rows[0].n);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const responses = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          rest(app(), 'GET', i % 2 ? `/store/inventory/${pet.id}` : '/pets?limit=100'),
        ),
      );
      done = true;
      await watching;
      expect(responses.every((response) => response.status === 200)).toBe(true);
      expect(most).toBeGreaterThan(0);
      // DATABASE_POOL_SIZE, plus the one connection that reads (and listens for) the events.
      expect(most).toBeLessThanOrEqual(2 + 1);
    } finally {
      await observer.end();
    }
  });
});
