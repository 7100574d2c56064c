import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { parseMetrics } from '../helpers/metrics.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

/** One flooder's request: a batch of 10 operations, each with 12 `__schema` aliases. */
const introspectionBatch = JSON.stringify(
  Array.from({ length: 10 }, (_, operation) => ({
    query: `{ ${Array.from(
      { length: 12 },
      (_, alias) =>
        `s${operation}_${alias}: __schema { types { name kind fields { name args { name type { name kind ofType { name } } } type { name kind ofType { name kind } } } } }`,
    ).join(' ')} }`,
  })),
);

describeDb('introspection flooders on the real server', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // The request budget off: in this test every client shares one address.
    server = await startServer({ SEED: 'false', RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('are refused before any of their batch runs, while a fifth client is answered every time', async () => {
    let flooding = true;
    const refusals: string[] = [];
    const flooder = async () => {
      while (flooding) {
        const response = await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: introspectionBatch,
        });
        const body = (await response.json()) as { errors?: { extensions: { code: string } }[] };
        refusals.push(body.errors?.[0]?.extensions.code ?? `${response.status} without an error`);
      }
    };
    const flooders = Array.from({ length: 4 }, flooder);

    // Timings are the bench's to judge; what keeps the fifth client served is that no flooding
    // operation executes: each batch is refused for its cost before any of it runs.
    let answered = 0;
    const deadline = Date.now() + 6000;
    while (Date.now() < deadline) {
      const response = await fetch(
        `${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`,
      );
      expect(await response.json()).toMatchObject({ data: { __typename: 'Query' } });
      answered += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    flooding = false;
    await Promise.all(flooders);

    // Each batch is refused for its cost before any of it runs.
    expect(refusals.length).toBeGreaterThan(0);
    expect(new Set(refusals)).toEqual(new Set(['QUERY_TOO_COMPLEX']));
    // The one introspection executed is the fifth client's first `{ __typename }` (the others are
    // answers kept in memory or in the response cache).
    const metrics = parseMetrics(await (await fetch(`${server.url}/metrics`)).text());
    const executed = metrics.filter(
      (sample) =>
        sample.name === 'petstore_introspection_answers_total' &&
        sample.labels.source === 'executed',
    );
    expect(executed.map((sample) => sample.value)).toEqual([1]);
    expect(answered).toBeGreaterThan(10);
  }, 60_000);
});
