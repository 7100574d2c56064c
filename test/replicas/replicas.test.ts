import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Change } from '../../src/domain/changes.js';
import { database, databaseAvailable, type TestApp } from '../helpers/app.js';
import { anonymous, withAuthorization } from '../helpers/client.js';
import { makeCategory, makePet, stockOf } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { sampleValue, scrape } from '../helpers/metrics.js';
import { freePort, redisServerInstalled, startRedis, stopRedis } from '../helpers/private-redis.js';
import { type Replicas, startReplicas } from '../helpers/replicas.js';
import { rest } from '../helpers/rest.js';

const redisUrl = inject('redisUrl');
/** Two replicas need one database they can both reach: PostgreSQL, as in production. */
const runs = database === 'postgresql' && databaseAvailable && redisUrl !== null;

/** The changes a replica's feed hears, collected. */
function listen(app: TestApp): Change[] {
  const heard: Change[] = [];
  app.changes.subscribe((changes) => {
    heard.push(...changes);
  });
  return heard;
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the condition');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.runIf(runs)('two replicas on one PostgreSQL and one Redis', () => {
  let replicas: Replicas;
  beforeAll(async () => {
    replicas = await startReplicas({ REDIS_URL: redisUrl ?? '', RATE_LIMIT_PER_MINUTE: '6' });
  });
  afterAll(() => replicas?.close());

  it("shares a client's rate budget: alternating replicas, the 7th request is the first refused", async () => {
    const token = `Bearer ${await replicas.a.token([], { subject: `budget-${Date.now()}` })}`;
    // Budgets are counted in clock-aligned minutes: start well inside one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000)
      await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const replica = i % 2 === 0 ? replicas.a : replicas.b;
      statuses.push((await rest(withAuthorization(replica, token), 'GET', '/categories')).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it('tells replica B about a write made on replica A', async () => {
    const heard = listen(replicas.b);
    const category = await makeCategory(replicas.a);
    const pet = await makePet(replicas.a, { categoryId: category.id, quantity: 2 });
    const placed = await rest(replicas.a, 'POST', '/store/orders', {
      json: { petId: Number(pet.id), quantity: 1 },
    });
    expect(placed.status).toBe(201);
    await eventually(() =>
      heard.some((change) => change.entity === 'inventory' && change.petId === pet.id),
    );
    expect(heard).toContainEqual({ entity: 'inventory', kind: 'updated', petId: pet.id });
  });
});

describe.runIf(runs)('two replicas sharing one cost budget through Redis', () => {
  let replicas: Replicas;
  beforeAll(async () => {
    // 35 points a minute: a write weighs 10, and the bucket refills by one in 1.7 s.
    replicas = await startReplicas({
      REDIS_URL: redisUrl ?? '',
      RATE_LIMIT_COST_PER_MINUTE: '35',
    });
  });
  afterAll(() => replicas?.close());

  it("charges a client's operations on either replica to one bucket: the 4th write is refused", async () => {
    const token = `Bearer ${await replicas.a.token(undefined, { subject: `cost-${Date.now()}` })}`;
    const results: { status: number; left?: number }[] = [];
    for (let i = 0; i < 4; i++) {
      const replica = i % 2 === 0 ? replicas.a : replicas.b;
      const response = await replica.fetch(
        graphqlRequest(
          {
            query: `mutation { createCategory(input: { name: "Shared ${i} ${Date.now()}" }) { id } }`,
          },
          { authorization: token },
        ),
      );
      const body = (await response.json()) as {
        extensions: { cost: { throttleStatus: { currentlyAvailable: number } } };
      };
      results.push({
        status: response.status,
        left: body.extensions.cost.throttleStatus.currentlyAvailable,
      });
    }
    expect(results.map((result) => result.status)).toEqual([200, 200, 200, 429]);
    // Each replica saw what the other had taken.
    expect(results[1]?.left).toBeLessThan(20);
    expect(results[2]?.left).toBeLessThan(10);
  });
});

describe.runIf(runs)('an orders race split across two replicas', () => {
  let replicas: Replicas;
  beforeAll(async () => {
    replicas = await startReplicas({ REDIS_URL: redisUrl ?? '' });
  });
  afterAll(() => replicas?.close());

  it('evicts a read cached on replica B when replica A writes, before A answers', async () => {
    const category = await makeCategory(replicas.a, { name: `Cached ${Date.now()}` });
    const readOn = async (replica: TestApp) => {
      const response = await rest(anonymous(replica), 'GET', `/categories/${category.id}`);
      return (response.body as { name: string }).name;
    };
    const readOnB = () => readOn(replicas.b);
    const viaGraphqlOnA = async () => {
      const response = await replicas.a.fetch(
        graphqlRequest({ query: `{ category(id: "${category.id}") { name } }` }),
      );
      return ((await response.json()) as { data: { category: { name: string } } }).data.category
        .name;
    };
    // Read until each answer is kept: under load a Redis command can pass its timeout, and a
    // lookup or store that fails is a miss that keeps nothing (the cache is bypassed, not wrong).
    const hits = async (replica: TestApp, edge: string) =>
      sampleValue(await scrape(replica), 'petstore_response_cache_hits_total', { edge }) ?? 0;
    const untilCached = (replica: TestApp, edge: string, read: () => Promise<string>) =>
      eventually(async () => {
        const before = await hits(replica, edge);
        expect(await read()).toBe(category.name);
        return (await hits(replica, edge)) > before;
      });
    await untilCached(replicas.b, 'rest', readOnB);
    await untilCached(replicas.a, 'graphql', viaGraphqlOnA);
    // Changed behind the product's back (no write, no eviction): both answers now come from the
    // shared cache, whichever replica stored them (a lookup that timed out would read 'Hidden').
    await replicas.a.sql(
      `UPDATE "Category" SET "description" = 'x', "name" = 'Hidden' WHERE "id" = ${category.id}`,
    );
    const fromCache = (read: () => Promise<string>) =>
      eventually(async () => (await read()) === category.name);
    await fromCache(readOnB);
    await fromCache(viaGraphqlOnA);
    // A never read this path itself: what it answers is what B stored.
    await fromCache(() => readOn(replicas.a));

    const heardOnB = listen(replicas.b);
    const evictions = async (replica: TestApp) =>
      sampleValue(await scrape(replica), 'petstore_response_cache_evictions_total', {
        reason: 'write',
      }) ?? 0;
    const before = { a: await evictions(replicas.a), b: await evictions(replicas.b) };
    const renamed = await rest(replicas.a, 'PUT', `/categories/${category.id}`, {
      json: { name: `Renamed ${category.id}` },
    });
    expect(renamed.status).toBe(200);
    // Right after A's answer, with no wait: B's read and A's GraphQL read see the write.
    expect(await readOnB()).toBe(`Renamed ${category.id}`);
    expect(await viaGraphqlOnA()).toBe(`Renamed ${category.id}`);
    // The write evicted once, on the replica that made it; B heard of it and evicted nothing.
    await eventually(() => heardOnB.some((change) => change.entity === 'category'));
    // The two answers cached for this category: B's REST read and A's GraphQL read.
    expect((await evictions(replicas.a)) - before.a).toBe(2);
    expect((await evictions(replicas.b)) - before.b).toBe(0);
  });

  it('never oversells: 200 concurrent orders for a stock of 50, exactly 50 succeed', async () => {
    const category = await makeCategory(replicas.a);
    const pet = await makePet(replicas.a, { categoryId: category.id, quantity: 50 });
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        rest(i % 2 === 0 ? replicas.a : replicas.b, 'POST', '/store/orders', {
          json: { petId: Number(pet.id), quantity: 1 },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(50);
    expect(statuses.filter((status) => status !== 201 && status !== 409)).toEqual([]);
    expect((await stockOf(replicas.a, pet.id)).quantity).toBe(0);
  });
});

if (runs && !redisServerInstalled)
  console.warn('Redis loss test skipped: no redis-server binary here.');

describe.runIf(runs && redisServerInstalled)('replicas while Redis is lost and back', () => {
  let port: number;
  let redis: ChildProcess;
  let replicas: Replicas;
  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    replicas = await startReplicas({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      RATE_LIMIT_PER_MINUTE: '1000',
      RATE_LIMIT_COST_PER_MINUTE: '100000',
    });
  });
  afterAll(async () => {
    await replicas?.close();
    if (redis.exitCode === null && redis.signalCode === null) await stopRedis(redis);
  });

  it('keeps answering 2xx without Redis, says so in readiness, and shares again once it is back', async () => {
    await stopRedis(redis);
    for (const replica of [replicas.a, replicas.b]) {
      expect((await rest(replica, 'GET', '/categories')).status).toBe(200);
      const category = await rest(replica, 'POST', '/categories', {
        json: { name: `Without Redis ${replica === replicas.a ? 'A' : 'B'} ${port}` },
      });
      expect(category.status).toBe(201);
      // The cost budget fails open too: each replica keeps its own bucket meanwhile.
      const read = await replica.fetch(graphqlRequest({ query: '{ categories { id } }' }));
      expect(read.status).toBe(200);
      expect(((await read.json()) as { extensions: unknown }).extensions).toMatchObject({
        cost: { throttleStatus: { maximumAvailable: 100000 } },
      });
      const ready = await replica.fetch(new Request('http://petstore.test/health/ready'));
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        status: 'ok',
        checks: { database: 'ok', redis: 'down' },
      });
    }

    // Counted and logged (throttled), never an error for the client.
    const metrics = await (
      await replicas.a.fetch(new Request('http://petstore.test/metrics'))
    ).text();
    expect(Number(/^petstore_redis_failures_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);

    redis = await startRedis(port);
    for (const replica of [replicas.a, replicas.b]) {
      await eventually(async () => {
        const ready = await replica.fetch(new Request('http://petstore.test/health/ready'));
        return ((await ready.json()) as { checks: { redis: string } }).checks.redis === 'ok';
      });
    }
    // Sharing resumes without a restart: B hears A's writes again.
    const heard = listen(replicas.b);
    const created = await rest(replicas.a, 'POST', '/categories', {
      json: { name: `With Redis again ${port}` },
    });
    expect(created.status).toBe(201);
    const id = BigInt((created.body as { id: number }).id);
    await eventually(() =>
      heard.some((change) => change.entity === 'category' && change.id === id),
    );
  });
});
