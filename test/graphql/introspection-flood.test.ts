import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
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

  it('leave a fifth client’s slowest answer under a second', async () => {
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

    const latencies: number[] = [];
    const deadline = Date.now() + 6000;
    while (Date.now() < deadline) {
      const started = performance.now();
      const response = await fetch(
        `${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`,
      );
      expect(await response.json()).toMatchObject({ data: { __typename: 'Query' } });
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    flooding = false;
    await Promise.all(flooders);

    // Each batch is refused for its cost before any of it runs.
    expect(refusals.length).toBeGreaterThan(0);
    expect(new Set(refusals)).toEqual(new Set(['QUERY_TOO_COMPLEX']));
    const slowest = Math.max(...latencies);
    expect(slowest, `latencies (ms): ${latencies.map(Math.round).join(' ')}`).toBeLessThan(1000);
  }, 60_000);
});
