import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { database, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import { multipartParts } from '../helpers/incremental.js';
import { events, serveApp, wsClient } from '../helpers/live.js';

/**
 * The time limit holds for a streamed query as for one answer: a deferred part that has not come
 * by the limit is not waited for. On PostgreSQL, where the test can hold the stock table locked
 * so that the deferred part waits.
 */
const postgresUrl = inject('postgresUrl');

describe.skipIf(database !== 'postgresql' || !postgresUrl)(
  'a deferred part past the time limit',
  () => {
    // Long enough for the first part to come in time on a loaded machine (else the answer is one
    // 503), short enough for a test.
    const app = useTestApp({ REQUEST_TIMEOUT_MS: '1500' });

    /** Holds the stock table locked (until `unlock`): a read of it waits past the limit. */
    async function lockStock() {
      const locker = new pg.Client({ connectionString: postgresUrl ?? undefined });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query(
        `LOCK TABLE "${app().databaseName}"."InventoryItem" IN ACCESS EXCLUSIVE MODE`,
      );
      return locker;
    }
    async function unlock(locker: pg.Client) {
      await locker.query('ROLLBACK');
      await locker.end();
    }

    for (const [spec, accept] of [
      ['2022', 'multipart/mixed;deferSpec=20220824'],
      ['v0.2', 'multipart/mixed;incrementalSpec=v0.2'],
    ] as const) {
      it(`ends the answer with TIMEOUT in its last part (${spec})`, async () => {
        const pet = await makePet(app(), { quantity: 3 });
        const locker = await lockStock();
        try {
          const response = await app().fetch(
            new Request('http://petstore.test/graphql', {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept },
              body: JSON.stringify({
                query: `query ($id: ID!) { pet(id: $id) { name ... @defer(label: "stock") { inventory { quantity } } } }`,
                variables: { id: String(pet.id) },
              }),
            }),
          );
          const parts = multipartParts(await response.text());
          expect(parts[0]).toMatchObject({ data: { pet: { name: pet.name } }, hasNext: true });
          const timeout = { extensions: { code: 'TIMEOUT', status: 503 } };
          expect(parts.at(-1)).toMatchObject(
            spec === '2022'
              ? { hasNext: false, errors: [timeout] }
              : { hasNext: false, completed: [{ id: '0', errors: [timeout] }] },
          );
          expect(parts.at(-1)).not.toHaveProperty('incremental');
        } finally {
          await unlock(locker);
        }
      });
    }

    it('ends a query over graphql-ws with TIMEOUT: in its last next message, or as its error', async () => {
      const pet = await makePet(app(), { quantity: 3 });
      const server = await serveApp(app());
      const client = wsClient(server);
      const locker = await lockStock();
      try {
        const answer = events((sink) =>
          client.subscribe(
            {
              query: `query ($id: ID!) { pet(id: $id) { name ... @defer(label: "stock") { inventory { quantity } } } }`,
              variables: { id: String(pet.id) },
            },
            sink,
          ),
        );
        expect(await answer.ended).toBeUndefined();
        const parts = answer.unread;
        expect(parts[0]).toMatchObject({ data: { pet: { name: pet.name } }, hasNext: true });
        expect(parts.at(-1)).toMatchObject({
          hasNext: false,
          errors: [{ extensions: { code: 'TIMEOUT', status: 503 } }],
        });
        // A query whose one answer is not ready by the limit: an error message, nothing sent.
        const plain = events((sink) =>
          client.subscribe(
            {
              query: 'query ($id: ID!) { pet(id: $id) { inventory { quantity } } }',
              variables: { id: String(pet.id) },
            },
            sink,
          ),
        );
        expect(await plain.ended).toMatchObject([{ extensions: { code: 'TIMEOUT', status: 503 } }]);
        expect(plain.unread).toEqual([]);
      } finally {
        await unlock(locker);
        await client.dispose();
        await server.close();
      }
    });
  },
);
