import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { database, databaseAvailable, useTestApp } from '../helpers/app.js';
import { makePet, stockOf } from '../helpers/factories.js';
import { expectError, rest } from '../helpers/rest.js';

// PostgreSQL only: there a second connection can hold a row lock while the app waits for it.
describe.skipIf(database !== 'postgresql' || !databaseAvailable)(
  'transactions are bound by REQUEST_TIMEOUT_MS',
  () => {
    const app = useTestApp({ REQUEST_TIMEOUT_MS: '400' });

    it('an order that timed out waiting for a lock is rolled back, not committed later', async () => {
      const pet = await makePet(app(), { quantity: 5 });
      const config = app().database.config;
      if (config.provider !== 'postgresql') throw new Error('PostgreSQL only');
      const url = new URL(config.url);
      url.searchParams.delete('schema');
      const holder = new pg.Client({
        connectionString: url.toString(),
        options: `-c search_path="${config.schema}"`,
      });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM "InventoryItem" WHERE "petId" = $1 FOR UPDATE', [pet.id]);

        const answer = await rest(app(), 'POST', '/store/orders', {
          json: { petId: Number(pet.id), quantity: 1 },
        });
        expectError(answer, 503, 'TIMEOUT');

        // The lock goes away well within the old fixed 10 s transaction limit…
        await sleep(600);
        await holder.query('COMMIT');
        await sleep(600);
      } finally {
        await holder.end();
      }

      // …and still the order never happened: its transaction ended with its request.
      expect(await stockOf(app(), pet.id)).toEqual({ quantity: 5, status: 'available' });
      expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(0);
    });
  },
);
