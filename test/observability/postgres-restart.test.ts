import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { createTestApp, database, databaseAvailable, type TestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { captureLogs } from '../helpers/logs.js';
import { rest } from '../helpers/rest.js';

/** PostgreSQL only: SQLite has no server whose connections can be cut. */
const describePostgres = describe.skipIf(database !== 'postgresql' || !databaseAvailable);

const initialStock = 100_000;
const rounds = 12;
const roundGapMs = 150;

/** What one request got: success, or the error code and statuses it answered with. */
interface Outcome {
  kind: string;
  ok: boolean;
  httpStatus: number;
  /** Contract codes with their `status`, e.g. `UNAVAILABLE/503`. */
  errors: string[];
  orderId?: string;
}

const PetsQuery =
  '{ pets(first: 10) { edges { node { id name category { name } inventory { quantity } } } } }';
const PlaceOrder =
  'mutation ($input: NewOrder!) { placeOrder(input: $input) { id quantity pet { id } } }';

async function restListPets(app: TestApp): Promise<Outcome> {
  const response = await rest<{ code?: string; status?: number }>(app, 'GET', '/pets?limit=10');
  return restOutcome('REST GET /pets', response.status, response.body);
}

async function restPlaceOrder(app: TestApp, petId: bigint): Promise<Outcome> {
  const response = await rest<{ id?: number; code?: string; status?: number }>(
    app,
    'POST',
    '/store/orders',
    { json: { petId: Number(petId), quantity: 1 } },
  );
  const outcome = restOutcome('REST POST /store/orders', response.status, response.body);
  if (response.status === 201) outcome.orderId = String(response.body.id);
  return outcome;
}

function restOutcome(
  kind: string,
  httpStatus: number,
  body: { code?: string; status?: number },
): Outcome {
  const ok = httpStatus >= 200 && httpStatus < 300;
  return { kind, ok, httpStatus, errors: ok ? [] : [`${body.code}/${body.status}`] };
}

async function graphqlCall(
  app: TestApp,
  kind: string,
  body: unknown,
): Promise<Outcome & { data?: Record<string, { id?: string }> | null }> {
  const response = await app.fetch(graphqlRequest(body, { authorization: app.authorization }));
  const result = (await response.json()) as {
    data?: Record<string, { id?: string }> | null;
    errors?: { extensions?: { code?: string; status?: number } }[];
  };
  const errors = (result.errors ?? []).map(
    (error) => `${error.extensions?.code}/${error.extensions?.status}`,
  );
  return {
    kind,
    ok: response.status === 200 && errors.length === 0,
    httpStatus: response.status,
    errors,
    data: result.data,
  };
}

async function graphqlPlaceOrder(app: TestApp, petId: bigint): Promise<Outcome> {
  const outcome = await graphqlCall(app, 'GraphQL placeOrder', {
    query: PlaceOrder,
    variables: { input: { petId: String(petId), quantity: 1 } },
  });
  const id = outcome.data?.placeOrder?.id;
  return { ...outcome, data: undefined, orderId: outcome.ok && id ? id : undefined } as Outcome;
}

/** Acceptable: success, or 503 UNAVAILABLE (GraphQL: every error UNAVAILABLE with status 503). */
function isAcceptable(outcome: Outcome): boolean {
  if (outcome.ok) return true;
  // GraphQL answers execution errors with 200 and partial data; REST with the error's status.
  const statuses = outcome.kind.startsWith('GraphQL') ? [200, 503] : [503];
  return (
    statuses.includes(outcome.httpStatus) &&
    outcome.errors.length > 0 &&
    outcome.errors.every((error) => error === 'UNAVAILABLE/503')
  );
}

describePostgres('PostgreSQL connections cut under load', () => {
  it('answers only success or 503 UNAVAILABLE, loses no acknowledged write, and recovers within 5 s', async () => {
    const logs = captureLogs('warn');
    const app = await createTestApp({}, { logger: logs.logger });
    // The control connection has its own application_name, so it never terminates itself.
    const control = new pg.Client({
      connectionString: inject('postgresUrl') ?? undefined,
      application_name: 'postgres-restart-test-control',
    });
    await control.connect();
    try {
      const category = await makeCategory(app);
      const pets = await Promise.all(
        Array.from({ length: 3 }, () =>
          makePet(app, { categoryId: category.id, quantity: initialStock }),
        ),
      );
      // Fetch the OpenAPI document first: the response checks of `rest` need it.
      expect((await rest(app, 'GET', '/openapi.json')).status).toBe(200);

      const outcomes: Outcome[] = [];
      let stopping = false;
      const worker = async (index: number) => {
        for (let n = index; !stopping; n++) {
          const pet = pets[n % pets.length]?.id ?? 0n;
          const call = [
            () => restListPets(app),
            () => restPlaceOrder(app, pet),
            () => graphqlCall(app, 'GraphQL pets', { query: PetsQuery }),
            () => graphqlPlaceOrder(app, pet),
          ][n % 4];
          if (call) outcomes.push(await call());
        }
      };
      const workers = Array.from({ length: 8 }, (_, index) => worker(index));

      // Cut every connection of this app (and only this app) again and again.
      let terminated = 0;
      const started = performance.now();
      for (let round = 0; round < rounds; round++) {
        await new Promise((resolve) => setTimeout(resolve, roundGapMs));
        const result = await control.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE application_name = $1 AND pid <> pg_backend_pid()`,
          [app.databaseName],
        );
        terminated += result.rowCount ?? 0;
      }

      // Serving again: both edges answer a read successfully within 5 s of the last cut.
      const cutEnded = performance.now();
      let recovered = false;
      while (!recovered && performance.now() - cutEnded < 5000) {
        const [restRead, graphqlRead] = await Promise.all([
          restListPets(app),
          graphqlCall(app, 'GraphQL pets', { query: PetsQuery }),
        ]);
        recovered = restRead.ok && graphqlRead.ok;
        if (!recovered) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      stopping = true;
      await Promise.all(workers);
      const loadSeconds = (performance.now() - started) / 1000;

      expect(terminated).toBeGreaterThan(0);
      expect(recovered).toBe(true);
      const unexpected = outcomes.filter((outcome) => !isAcceptable(outcome));
      expect(unexpected).toEqual([]);
      // The cuts did hit requests (otherwise this test proves nothing), and most still succeeded.
      expect(outcomes.filter((outcome) => !outcome.ok).length).toBeGreaterThan(0);
      expect(outcomes.filter((outcome) => outcome.ok).length).toBeGreaterThan(rounds);

      // No acknowledged order was lost, and stock is conserved: stock + ordered = initial stock,
      // whatever happened to the orders whose answer was a 503.
      const acknowledged = outcomes.flatMap((outcome) =>
        outcome.orderId ? [BigInt(outcome.orderId)] : [],
      );
      expect(acknowledged.length).toBeGreaterThan(0);
      const stored = await app.database.prisma.order.findMany({
        where: { id: { in: acknowledged } },
        select: { id: true },
      });
      expect(stored.length).toBe(acknowledged.length);
      for (const pet of pets) {
        const [stock, ordered] = await Promise.all([
          app.database.prisma.inventoryItem.findUniqueOrThrow({ where: { petId: pet.id } }),
          app.database.prisma.order.aggregate({
            where: { petId: pet.id },
            _sum: { quantity: true },
          }),
        ]);
        expect(stock.quantity + (ordered._sum.quantity ?? 0)).toBe(initialStock);
      }

      // The outage is logged once per second besides the access log's line per request, and nothing
      // is logged as unexpected.
      const outageLines = logs.lines.filter(
        (line) => line.msg === 'the database cannot be reached',
      );
      expect(outageLines.length).toBeLessThanOrEqual(Math.ceil(loadSeconds) + 1);
      expect(logs.lines.filter((line) => /unexpected/.test(String(line.msg)))).toEqual([]);
    } finally {
      await control.end();
      await app.close();
    }
  });
});
