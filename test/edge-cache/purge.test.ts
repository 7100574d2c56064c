import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { purgeBatches } from '../../src/edge-cache/purge-request.js';
import { createTestApp, describeDb, type TestApp } from '../helpers/app.js';
import { makePet } from '../helpers/factories.js';
import { sampleValue, scrape } from '../helpers/metrics.js';
import {
  type Recorded,
  type RecordingServer,
  startRecordingServer,
} from '../helpers/recording-server.js';
import { startReplicas } from '../helpers/replicas.js';

/** The tags one purge request names, whatever the CDN's shape. */
function tagsOf(request: Recorded): string[] {
  const header = request.headers['xkey-purge'] ?? request.headers['surrogate-key'];
  if (typeof header === 'string') return header.split(' ');
  return (JSON.parse(request.body) as { tags: string[] }).tags;
}

const allTags = (received: readonly Recorded[]) => received.flatMap(tagsOf);

/** Renames a pet through the REST façade (a committed change of the pet). */
async function rename(app: TestApp, pet: { id: bigint; categoryId: bigint }, name: string) {
  const response = await app.fetch(
    new Request(`http://petstore.test/api/pets/${pet.id}`, {
      method: 'PUT',
      headers: { authorization: app.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name, categoryId: Number(pet.categoryId) }),
    }),
  );
  expect(response.status).toBe(200);
}

describeDb('purges of committed changes', () => {
  let cdn: RecordingServer;
  let app: TestApp | undefined;
  beforeAll(async () => {
    cdn = await startRecordingServer();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    cdn.received.length = 0;
    cdn.status = 200;
  });
  afterAll(async () => {
    await cdn.close();
  });

  const shapes = {
    varnish: (pet: bigint) => ({
      method: 'PURGE',
      url: '/purge',
      header: ['xkey-purge', `pet:${pet} pet:* *`],
    }),
    fastly: (pet: bigint) => ({
      method: 'POST',
      url: '/purge',
      header: ['surrogate-key', `pet:${pet} pet:* *`],
    }),
    cloudflare: (_pet: bigint) => ({
      method: 'POST',
      url: '/purge',
      header: ['content-type', 'application/json'],
    }),
  };

  for (const kind of ['varnish', 'fastly', 'cloudflare'] as const) {
    it(`sends ${kind}'s purge for a write`, async () => {
      app = await createTestApp({
        EDGE_PURGE_URL: cdn.url,
        EDGE_PURGE_KIND: kind,
        ...(kind === 'varnish' ? {} : { EDGE_PURGE_TOKEN: 'secret-token' }),
      });
      const pet = await makePet(app);
      await rename(app, pet, 'Purged');
      await cdn.until((received) => allTags(received).includes(`pet:${pet.id}`));
      const [request] = cdn.received;
      const shape = shapes[kind](pet.id);
      expect(request?.method).toBe(shape.method);
      expect(request?.url).toBe(shape.url);
      const [name, value] = shape.header as [string, string];
      expect(request?.headers[name]).toBe(value);
      if (kind === 'fastly') expect(request?.headers['fastly-key']).toBe('secret-token');
      if (kind === 'cloudflare') {
        expect(request?.headers.authorization).toBe('Bearer secret-token');
        expect(JSON.parse(request?.body ?? '')).toEqual({ tags: [`pet:${pet.id}`, 'pet:*', '*'] });
      }
    });
  }

  it("purges a written pet and the lists, never another pet's own tags", async () => {
    app = await createTestApp({ EDGE_PURGE_URL: cdn.url });
    const [written, other] = [await makePet(app), await makePet(app)];
    await rename(app, written, 'Written');
    await cdn.until((received) => allTags(received).includes(`pet:${written.id}`));
    const tags = allTags(cdn.received);
    expect(tags).toEqual(expect.arrayContaining([`pet:${written.id}`, 'pet:*']));
    expect(tags).not.toContain(`pet:${other.id}`);
    expect(tags).not.toContain(`inventory:${other.id}`);
  });

  it('retries while the CDN fails, and the purge arrives once it answers', async () => {
    app = await createTestApp({ EDGE_PURGE_URL: cdn.url });
    cdn.status = 503;
    const attempts = cdn.attempts;
    const pet = await makePet(app);
    await rename(app, pet, 'Later');
    await cdn.until(() => cdn.attempts >= attempts + 4);
    expect(cdn.received).toEqual([]);
    // Requests go on; readiness and the metrics say the purges are behind.
    const ready = async () => {
      const response = await app?.fetch(new Request('http://petstore.test/health/ready'));
      return { status: response?.status, body: await response?.json() };
    };
    expect(await ready()).toEqual({
      status: 200,
      body: { status: 'ok', checks: { database: 'ok', edgePurges: 'behind' } },
    });
    const failing = await scrape(app);
    expect(sampleValue(failing, 'petstore_edge_purge_failures_total', {})).toBeGreaterThanOrEqual(
      3,
    );
    expect(sampleValue(failing, 'petstore_edge_purge_lag_seconds', {})).toBeGreaterThan(1);
    cdn.status = 200;
    await cdn.until((received) => allTags(received).includes(`pet:${pet.id}`), 40_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await ready()).body.checks.edgePurges).toBe('ok');
    const purged = await scrape(app);
    expect(sampleValue(purged, 'petstore_edge_purge_lag_seconds', {})).toBe(0);
    expect(sampleValue(purged, 'petstore_edge_purge_last_event', {})).toBeGreaterThan(0);
  });

  it('bounds each request by EDGE_PURGE_MAX_TAGS', async () => {
    app = await createTestApp({ EDGE_PURGE_URL: cdn.url, EDGE_PURGE_MAX_TAGS: '2' });
    const pets = [await makePet(app), await makePet(app)];
    // Each rename changes a pet: three tags each, in requests of two at most.
    for (const pet of pets) await rename(app, pet, 'Bounded');
    await cdn.until((received) => pets.every(({ id }) => allTags(received).includes(`pet:${id}`)));
    for (const request of cdn.received) expect(tagsOf(request).length).toBeLessThanOrEqual(2);
  });
});

describeDb('two replicas', () => {
  it('purge each change once', { timeout: 60_000 }, async () => {
    const cdn = await startRecordingServer();
    const replicas = await startReplicas({ EDGE_PURGE_URL: cdn.url, EDGE_PURGE_MAX_TAGS: '1' });
    try {
      const pets: { id: bigint }[] = [];
      for (let index = 0; index < 6; index++) {
        const app = index % 2 === 0 ? replicas.a : replicas.b;
        const pet = await makePet(app);
        await rename(app, pet, `Replica ${index}`);
        pets.push(pet);
      }
      await cdn.until((received) =>
        pets.every(({ id }) => allTags(received).includes(`pet:${id}`)),
      );
      // Another second for any second purge to arrive.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const tags = allTags(cdn.received);
      for (const { id } of pets) expect(tags.filter((tag) => tag === `pet:${id}`)).toHaveLength(1);
    } finally {
      await replicas.close();
      await cdn.close();
    }
  });
});

describe('the purge configuration', () => {
  it('asks a token of Fastly and Cloudflare', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(() =>
      loadConfig({
        EDGE_PURGE_URL: 'https://api.fastly.com/service/x/purge',
        EDGE_PURGE_KIND: 'fastly',
      }),
    ).toThrow(/EDGE_PURGE_TOKEN: must be set when EDGE_PURGE_KIND is fastly/);
    expect(() => loadConfig({ EDGE_PURGE_URL: 'ftp://cdn' })).toThrow(/EDGE_PURGE_URL/);
  });
});

describe('the purge batches', () => {
  it('stay within EDGE_PURGE_MAX_TAGS and EDGE_PURGE_MAX_BYTES, every tag sent once', () => {
    const tags = Array.from({ length: 1000 }, (_, index) => `pet:${index * 7919}`);
    const batches = purgeBatches(tags, 100, 1024);
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(100);
      expect(batch.join(' ').length).toBeLessThanOrEqual(1024);
    }
    expect(batches.flat()).toEqual(tags);
    // A flood of tags becomes more requests, never a larger one.
    expect(purgeBatches(tags, 256, 65_536).length).toBe(4);
  });
});
