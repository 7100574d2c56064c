import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RedisCacheStore } from '../../src/cache/redis-store.js';
import type { CachedResponse } from '../../src/cache/store.js';
import { entityTag } from '../../src/cache/tags.js';
import { cacheFenceRow } from '../../src/db/cache-fence.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { connectRedis } from '../../src/redis.js';
import { createTestApp, databaseAvailable, type TestApp, useTestApp } from '../helpers/app.js';
import { anonymous } from '../helpers/client.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { sampleValue, scrape } from '../helpers/metrics.js';
import { freePort, redisServerInstalled, startRedis, stopRedis } from '../helpers/private-redis.js';
import { type Replicas, startReplicas } from '../helpers/replicas.js';
import { rest } from '../helpers/rest.js';

const redisUrl = inject('redisUrl');

/** An anonymous read of a category on both edges: its name as REST and GraphQL answer it. */
async function namesOf(app: TestApp, id: bigint) {
  const viaRest = await rest<{ name: string }>(anonymous(app), 'GET', `/categories/${id}`);
  const viaGraphql = await app.fetch(
    graphqlRequest({ query: `{ category(id: "${id}") { name } }` }),
  );
  const { data } = (await viaGraphql.json()) as { data: { category: { name: string } } };
  return [viaRest.body.name, data.category.name];
}

/** Resolves once the app's Redis connections are up, so that its reads are cached. */
async function redisReady(app: TestApp) {
  for (let tries = 0; tries < 100; tries++) {
    const ready = await app.fetch(new Request('http://petstore.test/health/ready'));
    const { checks } = (await ready.json()) as { checks: { redis?: string } };
    if (checks.redis === 'ok') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('Redis did not come up');
}

/** Public reads answered from the cache so far. */
async function hits(app: TestApp) {
  const samples = await scrape(app);
  return ['rest', 'graphql'].map(
    (edge) => sampleValue(samples, 'petstore_response_cache_hits_total', { edge }) ?? 0,
  );
}

/** A store of its own on the app's Redis, as a replica has. */
async function storeOf(app: TestApp) {
  const connection = connectRedis(redisUrl ?? '', {
    databaseUrl: app.config.database.url,
    logger: app.logger,
  });
  if (connection.commands.status !== 'ready')
    await new Promise((resolve) => connection.commands.once('ready', resolve));
  const store = new RedisCacheStore(
    connection,
    cacheFenceRow(app.database),
    { ttlMs: 60_000, maxEntryBytes: 1024, evictChunk: 500 },
    createMetrics(app.database),
  );
  return { connection, store };
}

describe.runIf(databaseAvailable && redisUrl !== null)('the response cache in Redis', () => {
  const app = useTestApp({ REDIS_URL: redisUrl ?? '' });

  it('keeps GraphQL results apart from their cost reports, in a format of its own', async () => {
    await redisReady(app());
    const pet = await makePet(app());
    const read = () => app().fetch(graphqlRequest({ query: `{ pet(id: "${pet.id}") { name } }` }));
    const miss = await (await read()).json();
    const hit = await (await read()).json();
    expect(miss.extensions.cost).toEqual({ requestedQueryCost: 1, actualQueryCost: 1 });
    // A hit ran nothing: the requested cost kept with the result, no actual cost.
    expect(hit).toEqual({ data: miss.data, extensions: { cost: { requestedQueryCost: 1 } } });

    const { connection, store } = await storeOf(app());
    try {
      // An entry of the earlier format, which kept a GraphQL answer's body: never read.
      const earlier = { headers: {}, body: '{"data":{}}', etag: '"e"', requestedCosts: [1] };
      await connection.commands.set(
        `${connection.prefix}cache:entry:earlier`,
        JSON.stringify(earlier),
      );
      expect((await store.lookup('earlier')).response).toBeUndefined();
      const kept: CachedResponse = {
        headers: {},
        results: { data: '{"pet":null}', requestedQueryCost: 1 },
        etag: '"k"',
      };
      const { generation } = await store.lookup('kept');
      expect(await store.set('kept', kept, [entityTag('pet', pet.id)], generation)).toBe(true);
      expect((await store.lookup('kept')).response).toEqual(kept);
    } finally {
      await connection.close();
    }
  });

  it('never serves a stale read after a write, with 20,000 entries under one tag', async () => {
    await redisReady(app());
    const category = await makeCategory(app(), { name: `Before ${Date.now()}` });
    expect(await namesOf(app(), category.id)).toEqual([category.name, category.name]);
    const [restHits = 0, graphqlHits = 0] = await hits(app());
    expect(await namesOf(app(), category.id)).toEqual([category.name, category.name]);
    expect(await hits(app())).toEqual([restHits + 1, graphqlHits + 1]);

    // 20,000 more entries under the category's tag, written through the store's own `set`.
    const { connection, store } = await storeOf(app());
    try {
      const { generation } = await store.lookup('probe');
      const filler: CachedResponse = { headers: {}, body: '{"filler":true}', etag: '"f"' };
      const tags = [entityTag('category', category.id)];
      // A hundred at a time: each command must answer within the connection's 500 ms.
      for (let batch = 0; batch < 200; batch++) {
        const stored = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            store.set(`filler-${category.id}-${batch * 100 + i}`, filler, tags, generation),
          ),
        );
        expect(stored.every(Boolean)).toBe(true);
      }

      const renamed = `After ${Date.now()}`;
      const written = await rest(app(), 'PUT', `/categories/${category.id}`, {
        json: { name: renamed },
      });
      expect(written.status).toBe(200);
      expect(await namesOf(app(), category.id)).toEqual([renamed, renamed]);
      // Every entry under the tag went, in steps.
      const left = await connection.commands.exists(
        ...[0, 9_999, 19_999].map(
          (i) => `${connection.prefix}cache:entry:v2:filler-${category.id}-${i}`,
        ),
      );
      expect(left).toBe(0);
    } finally {
      await connection.close();
    }
  });
});

describe.runIf(databaseAvailable)('the largest response the cache keeps', () => {
  for (const store of redisUrl === null ? ['memory'] : ['memory', 'redis']) {
    describe(store, () => {
      const app = useTestApp({
        RESPONSE_CACHE_MAX_ENTRY_BYTES: '2048',
        ...(store === 'redis' ? { REDIS_URL: redisUrl ?? '' } : {}),
      });

      it('keeps a small answer and answers a large one without keeping it', async () => {
        if (store === 'redis') await redisReady(app());
        const category = await makeCategory(app());
        for (let i = 0; i < 40; i++) await makePet(app(), { categoryId: category.id });
        const page = `/pets?categoryId=${category.id}&limit=40`;
        const small = `/categories/${category.id}`;
        const read = (path: string) => rest(anonymous(app()), 'GET', path);
        expect((await read(page)).text.length).toBeGreaterThan(2048);
        const before = await hits(app());
        await read(page);
        await read(page);
        await read(small);
        await read(small);
        // Only the second read of the small answer was a hit.
        expect(await hits(app())).toEqual([(before[0] ?? 0) + 1, before[1]]);
      });
    });
  }
});

describe.runIf(databaseAvailable && redisServerInstalled)(
  'an eviction that fails makes the cache miss (a private Redis that refuses DEL to the app)',
  () => {
    let redis: ChildProcess;
    let admin: Redis;
    let app: TestApp;
    beforeAll(async () => {
      const port = await freePort();
      redis = await startRedis(port);
      admin = new Redis(port, '127.0.0.1');
      // The app may do anything but DEL: its evictions fail, everything else works.
      await admin.call('ACL', 'SETUSER', 'app', 'on', 'nopass', '~*', '&*', '+@all', '-del');
      app = await createTestApp({ REDIS_URL: `redis://app:any@127.0.0.1:${port}` });
      await redisReady(app);
    });
    afterAll(async () => {
      await app?.close();
      admin?.disconnect();
      if (redis) await stopRedis(redis);
    });

    it('never serves the entries it could not evict, and caches again afterwards', async () => {
      const category = await makeCategory(app, { name: `Before ${Date.now()}` });
      await namesOf(app, category.id);
      const [restHits = 0, graphqlHits = 0] = await hits(app);
      expect(await namesOf(app, category.id)).toEqual([category.name, category.name]);
      expect(await hits(app)).toEqual([restHits + 1, graphqlHits + 1]);

      const renamed = `After ${Date.now()}`;
      const written = await rest(app, 'PUT', `/categories/${category.id}`, {
        json: { name: renamed },
      });
      expect(written.status).toBe(200);
      // The old answers are still in Redis, but never served.
      expect(await namesOf(app, category.id)).toEqual([renamed, renamed]);
      expect(await namesOf(app, category.id)).toEqual([renamed, renamed]);

      // The fence holds the old entries off without stopping the cache: new answers are kept.
      await admin.call('ACL', 'SETUSER', 'app', '+del');
      const [before = 0] = await hits(app);
      expect(await namesOf(app, category.id)).toEqual([renamed, renamed]);
      const [after = 0] = await hits(app);
      expect(after).toBe(before + 1);
    });
  },
);

describe.runIf(databaseAvailable && redisServerInstalled)(
  'two replicas while Redis pauses writes (CLIENT PAUSE WRITE, as its FAILOVER does)',
  () => {
    let redis: ChildProcess;
    let port: number;
    let admin: Redis;
    let replicas: Replicas;
    beforeAll(async () => {
      port = await freePort();
      redis = await startRedis(port);
      admin = new Redis(port, '127.0.0.1');
      replicas = await startReplicas({
        REDIS_URL: `redis://127.0.0.1:${port}`,
        RATE_LIMIT_PER_MINUTE: '0',
        RATE_LIMIT_COST_PER_MINUTE: '0',
      });
      await redisReady(replicas.a);
      await redisReady(replicas.b);
    });
    afterAll(async () => {
      await admin?.call('CLIENT', 'UNPAUSE').catch(() => {});
      await replicas?.close();
      admin?.disconnect();
      if (redis) await stopRedis(redis);
    });

    it('never answers from B, once a write on A has answered, what the write changed', async () => {
      const category = await makeCategory(replicas.a, { name: `Before ${Date.now()}` });
      // 100 entries under the category's tag, plus a REST one: as many GraphQL documents.
      const documents = Array.from(
        { length: 100 },
        (_, i) => `{ category(id: "${category.id}") { name } } # ${i}`,
      );
      const readOnB = () =>
        Promise.all([
          namesOf(replicas.b, category.id),
          ...documents.map(async (query) => {
            const response = await replicas.b.fetch(graphqlRequest({ query }));
            const { data } = (await response.json()) as { data: { category: { name: string } } };
            return [data.category.name];
          }),
        ]).then((names) => names.flat());
      const answers = documents.length + 2;
      // Cached through B: read until a whole pass is answered from the cache (under load a Redis
      // command can pass its timeout, and a lookup or store that fails keeps nothing).
      for (let pass = 0; ; pass++) {
        const [restHits = 0, graphqlHits = 0] = await hits(replicas.b);
        expect(new Set(await readOnB())).toEqual(new Set([category.name]));
        const [restAfter = 0, graphqlAfter = 0] = await hits(replicas.b);
        if (restAfter + graphqlAfter - restHits - graphqlHits === answers) break;
        if (pass === 20) throw new Error('the answers were never all cached');
      }

      // Reads go on in Redis, writes (A's eviction, its fence) wait until the pause ends.
      await admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
      const renamed = `After ${Date.now()}`;
      const written = await rest(replicas.a, 'PUT', `/categories/${category.id}`, {
        json: { name: renamed },
      });
      expect(written.status).toBe(200);
      for (let pass = 0; pass < 3; pass++)
        expect(new Set(await readOnB())).toEqual(new Set([renamed]));
      // Redis was pausing writes all along: another client's write still waits.
      const probe = new Redis(port, '127.0.0.1', { commandTimeout: 300 });
      try {
        await expect(probe.set('probe', '1')).rejects.toThrow(/timed out/);
      } finally {
        probe.disconnect();
      }

      await admin.call('CLIENT', 'UNPAUSE');
      expect(new Set(await readOnB())).toEqual(new Set([renamed]));
      // Once Redis takes writes again, B caches and serves again.
      for (let pass = 0; ; pass++) {
        const [restHits = 0] = await hits(replicas.b);
        expect((await namesOf(replicas.b, category.id))[0]).toBe(renamed);
        const [restAfter = 0] = await hits(replicas.b);
        if (restAfter > restHits) break;
        if (pass === 50) throw new Error('B never served from the cache again');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
  },
);
