import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { boundedTags, MAX_TAG_HEADER_BYTES } from '../../src/edge-cache/headers.js';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';

const BASE = 'http://petstore.test';
const EDGE_HEADERS = ['surrogate-key', 'cache-tag', 'cdn-cache-control', 'surrogate-control'];

/** What a CDN reads of an answer: its edge headers and Cache-Control. */
function edgeOf(response: Response) {
  const headers: Record<string, string | null> = { status: String(response.status) };
  for (const name of [...EDGE_HEADERS, 'cache-control']) headers[name] = response.headers.get(name);
  return headers;
}

const none = (status: number, cacheControl: string | null) => ({
  status: String(status),
  'surrogate-key': null,
  'cache-tag': null,
  'cdn-cache-control': null,
  'surrogate-control': null,
  'cache-control': cacheControl,
});

const sortedTags = (response: Response) =>
  (response.headers.get('surrogate-key') ?? '').split(' ').sort();

function get(app: TestApp, path: string, headers: Record<string, string> = {}) {
  return app.fetch(new Request(`${BASE}${path}`, { headers }));
}

function getQuery(app: TestApp, query: string, headers: Record<string, string> = {}) {
  return get(app, `/graphql?${new URLSearchParams({ query })}`, {
    accept: 'application/graphql-response+json',
    ...headers,
  });
}

function post(app: TestApp, body: unknown, headers: Record<string, string> = {}) {
  return app.fetch(
    new Request(`${BASE}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  );
}

/** Each kind of answer, with the response cache on (a miss, then a hit) and off. */
for (const [cache, ttl] of [
  ['on', '60000'],
  ['off', '0'],
] as const) {
  describeDb(`edge headers with the response cache ${cache}`, () => {
    const app = useTestApp({ RESPONSE_CACHE_TTL_MS: ttl, EDGE_CACHE_MAX_AGE_S: '300' });
    const lifetime = { 'cdn-cache-control': 'max-age=300', 'surrogate-control': 'max-age=300' };

    it('a REST read by id and a REST list name their tags, twice alike, with a CDN lifetime', async () => {
      const pet = await makePet(app(), {});
      for (let round = 0; round < 2; round++) {
        expect(edgeOf(await get(app(), `/api/pets/${pet.id}`))).toEqual({
          status: '200',
          'surrogate-key': `pet:${pet.id}`,
          'cache-tag': `pet:${pet.id}`,
          ...lifetime,
          'cache-control': 'no-cache',
        });
        expect(edgeOf(await get(app(), '/api/pets?limit=2'))).toEqual({
          status: '200',
          'surrogate-key': 'pet:*',
          'cache-tag': 'pet:*',
          ...lifetime,
          'cache-control': 'no-cache',
        });
      }
    });

    it('a GraphQL GET names the entities it shows and the lists it asks for, as REST names them', async () => {
      const category = await makeCategory(app());
      const [a, b] = [await makePet(app(), { categoryId: category.id }), await makePet(app())];
      const query = `{ pet(id: "${a.id}") { id name category { id } } pets(first: 50) { edges { node { id } } } }`;
      const first = await getQuery(app(), query);
      const second = await getQuery(app(), query);
      for (const response of [first, second]) {
        expect(response.status).toBe(200);
        const tags = sortedTags(response);
        expect(tags).toEqual(expect.arrayContaining(['pet:*', `pet:${a.id}`, `pet:${b.id}`]));
        expect(tags).toContain(`category:${category.id}`);
        expect(response.headers.get('cache-tag')?.split(',').sort()).toEqual(tags);
        expect(response.headers.get('cdn-cache-control')).toBe('max-age=300');
        expect(response.headers.get('cache-control')).toBe('no-cache');
      }
      const byId = await getQuery(app(), `{ pet(id: "${b.id}") { id name } }`);
      expect(byId.headers.get('surrogate-key')).toBe(`pet:${b.id}`);
    });

    it('a hash-only persisted query by GET carries the same tags', async () => {
      const pet = await makePet(app());
      const query = `{ pet(id: "${pet.id}") { id name } }`;
      const sha256Hash = createHash('sha256').update(query).digest('hex');
      const persistedQuery = { version: 1, sha256Hash };
      // Registered by POST (which carries no tags), then read by its hash alone.
      const registered = await post(app(), { query, extensions: { persistedQuery } });
      expect(edgeOf(registered)).toEqual(none(200, null));
      const extensions = JSON.stringify({ persistedQuery });
      const byHash = await get(app(), `/graphql?${new URLSearchParams({ extensions })}`, {
        accept: 'application/graphql-response+json',
      });
      expect(edgeOf(byHash)).toEqual({
        status: '200',
        'surrogate-key': `pet:${pet.id}`,
        'cache-tag': `pet:${pet.id}`,
        ...lifetime,
        'cache-control': 'no-cache',
      });
    });

    it('nothing with a token, no POST, no write, no error and no 404 carries tags or a lifetime', async () => {
      const pet = await makePet(app());
      const authorization = app().authorization;
      const query = `{ pet(id: "${pet.id}") { id name } }`;
      expect(edgeOf(await get(app(), `/api/pets/${pet.id}`, { authorization }))).toEqual(
        none(200, 'private, no-store'),
      );
      expect(edgeOf(await getQuery(app(), query, { authorization }))).toEqual(
        none(200, 'private, no-store'),
      );
      // A POST, twice (the second a hit when the cache is on).
      for (let round = 0; round < 2; round++)
        expect(edgeOf(await post(app(), { query }))).toEqual(none(200, null));
      const renamed = await post(
        app(),
        {
          query: `mutation { updatePet(id: "${pet.id}", input: { name: "Renamed", categoryId: "${pet.categoryId}" }) { id } }`,
        },
        { authorization },
      );
      expect(edgeOf(renamed)).toEqual(none(200, null));
      const write = await app().fetch(
        new Request(`${BASE}/api/pets/${pet.id}`, {
          method: 'PUT',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Again', categoryId: Number(pet.categoryId) }),
        }),
      );
      expect(write.status).toBe(200);
      expect(edgeOf(write).status).toBe('200');
      expect(edgeOf(write)['surrogate-key']).toBeNull();
      expect(edgeOf(write)['cdn-cache-control']).toBeNull();
      expect(edgeOf(await get(app(), '/api/pets/999999999'))).toEqual(none(404, null));
      expect(edgeOf(await get(app(), '/api/pets?status=lost'))).toEqual(none(400, null));
      const failed = await getQuery(app(), '{ pet(id: "1") { nope } }');
      expect(failed.status).toBe(400);
      expect(failed.headers.get('surrogate-key')).toBeNull();
      expect(failed.headers.get('cdn-cache-control')).toBeNull();
      // A query that ran with an error (a pet id that is no id).
      const partial = await getQuery(app(), '{ pet(id: "x") { id } }');
      expect(partial.headers.get('surrogate-key')).toBeNull();
    });
  });
}

describeDb('edge headers turned off', () => {
  const app = useTestApp({ RESPONSE_CACHE_TTL_MS: '0', EDGE_CACHE_TAGS: 'false' });

  it('leaves every answer as it was: no tags, no CDN lifetime', async () => {
    const pet = await makePet(app());
    expect(edgeOf(await get(app(), `/api/pets/${pet.id}`))).toEqual(none(200, 'no-cache'));
    expect(edgeOf(await getQuery(app(), `{ pet(id: "${pet.id}") { id } }`))).toEqual(
      none(200, 'no-cache'),
    );
  });
});

describe('the bound of a tag header', () => {
  it('keeps a list that fits, and past 16 KiB names each kind by its list tag', () => {
    const few = ['pet:1', 'pet:*', 'category:2'];
    expect(boundedTags(few)).toBe(few);
    const many = Array.from({ length: 3000 }, (_, index) => `pet:${index + 1_000_000}`);
    many.push('category:7', 'inventory:3');
    expect(many.join(' ').length).toBeGreaterThan(MAX_TAG_HEADER_BYTES);
    expect(boundedTags(many)).toEqual(['pet:*', 'category:*', 'inventory:*']);
  });
});
