import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import { assemble, multipartParts } from '../helpers/incremental.js';
import { type Sample, sampleValue, scrape } from '../helpers/metrics.js';

const URL_BASE = 'http://petstore.test';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const Stock = `query Stock($id: ID!) {
  pet(id: $id) { id name ... @defer(label: "a") { inventory { quantity } } ... @defer(label: "b") { status } }
}`;

function get(app: TestApp, params: Record<string, unknown>, accept: string) {
  const search = new URLSearchParams(
    Object.entries(params).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
  return app.fetch(new Request(`${URL_BASE}/graphql?${search}`, { headers: { accept } }));
}

const hits = (samples: Sample[]) =>
  sampleValue(samples, 'petstore_response_cache_hits_total', { edge: 'graphql' }) ?? 0;

async function setStock(app: TestApp, petId: bigint, quantity: number) {
  const response = await app.fetch(
    new Request(`${URL_BASE}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: app.authorization },
      body: JSON.stringify({
        query:
          'mutation ($id: ID!, $q: Int!) { updateInventory(petId: $id, input: { quantity: $q }) { quantity } }',
        variables: { id: String(petId), q: quantity },
      }),
    }),
  );
  expect(response.status).toBe(200);
}

describeDb('@defer through the response cache', () => {
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '60000' });

  for (const [spec, accept] of [
    ['2022', 'multipart/mixed;deferSpec=20220824'],
    ['v0.2', 'multipart/mixed;incrementalSpec=v0.2'],
  ] as const) {
    it(`keeps the complete result only, answers it in one ${spec} part, and never serves data older than a write`, async () => {
      const pet = await makePet(app(), { quantity: 4 });
      const params = { query: Stock, variables: { id: String(pet.id) } };
      const before = await scrape(app());
      const first = multipartParts(await (await get(app(), params, accept)).text());
      expect(first.length).toBeGreaterThan(1);
      const whole = {
        pet: {
          id: String(pet.id),
          name: pet.name,
          inventory: { quantity: 4 },
          status: 'available',
        },
      };
      expect(assemble(first, spec)).toEqual(whole);

      // The same request: a hit, the complete result in one part (never a part kept on its own).
      const hit = await get(app(), params, accept);
      expect(hit.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');
      const [only, ...more] = multipartParts(await hit.text());
      expect(more).toEqual([]);
      expect(only).toEqual({ data: whole, extensions: { cost: { requestedQueryCost: 2 } } });
      expect(hits(await scrape(app())) - hits(before)).toBe(1);

      // A write between two deferred reads: the next one sees it, from a fresh execution.
      await setStock(app(), pet.id, 9);
      const after = multipartParts(await (await get(app(), params, accept)).text());
      expect(after.length).toBeGreaterThan(1);
      expect(assemble(after, spec)).toEqual({ pet: { ...whole.pet, inventory: { quantity: 9 } } });
    });
  }

  it('keeps nothing of a deferred answer a write overtook while it streamed', async () => {
    const pet = await makePet(app(), { quantity: 1 });
    const params = { query: Stock, variables: { id: String(pet.id) } };
    const accept = 'multipart/mixed;deferSpec=20220824';
    const response = await get(app(), params, accept);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    // The first part has gone out; the write answers before the client reads the rest.
    await reader.read();
    await setStock(app(), pet.id, 5);
    while (!(await reader.read()).done);
    const next = multipartParts(await (await get(app(), params, accept)).text());
    expect(next.length).toBeGreaterThan(1);
    expect(assemble(next, '2022')).toMatchObject({ pet: { inventory: { quantity: 5 } } });
  });

  it('runs an automatic persisted query sent by its hash alone, deferred', async () => {
    const pet = await makePet(app(), { quantity: 6 });
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(Stock) } };
    const variables = { id: String(pet.id) };
    const accept = 'multipart/mixed;incrementalSpec=v0.2';
    const unknown = multipartParts(
      await (await get(app(), { variables, extensions }, accept)).text(),
    );
    expect(unknown[0]?.errors).toMatchObject([
      { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } },
    ]);
    const registered = await app().fetch(
      new Request(`${URL_BASE}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify({ query: Stock, variables, extensions }),
      }),
    );
    expect(multipartParts(await registered.text()).length).toBeGreaterThan(1);
    // By its hash alone: streamed, then (the same GET again) the kept complete result, one part.
    const byHash = multipartParts(
      await (await get(app(), { variables, extensions }, accept)).text(),
    );
    expect(byHash.length).toBeGreaterThan(1);
    expect(assemble(byHash, 'v0.2')).toMatchObject({ pet: { inventory: { quantity: 6 } } });
    const again = multipartParts(
      await (await get(app(), { variables, extensions }, accept)).text(),
    );
    expect(again).toHaveLength(1);
    expect(again[0]?.data).toEqual(assemble(byHash, 'v0.2'));
  });
});
