import { afterAll, beforeAll, expect, it } from 'vitest';
import { liveSecret, liveToken, restPet } from '../helpers/live.js';
import { type ServerProcess, startServer } from '../helpers/server.js';
import { describeVarnish, freePort, startVarnish, type Varnish } from '../helpers/varnish.js';

describeVarnish('Varnish with the shipped configuration in front', { timeout: 60_000 }, () => {
  let server: ServerProcess;
  let varnish: Varnish;
  beforeAll(async () => {
    const port = await freePort();
    server = await startServer({
      AUTH_JWT_SECRET: liveSecret,
      SEED: 'false',
      EDGE_CACHE_MAX_AGE_S: '300',
      EDGE_PURGE_URL: `http://127.0.0.1:${port}/`,
    });
    varnish = await startVarnish(port, Number(new URL(server.url).port));
  });
  afterAll(async () => {
    await varnish?.stop();
    await server?.stop();
  });

  const read = async (path: string) => {
    const response = await fetch(`${varnish.url}${path}`, {
      headers: { accept: 'application/json' },
    });
    return { cache: response.headers.get('x-cache'), body: await response.json(), response };
  };

  /** Until the server has purged every change it made (the purges of a pet's creation included). */
  const purgesDone = async () => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      if (/^petstore_edge_purge_lag_seconds 0$/m.test(metrics)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the purges did not catch up');
  };

  it('serves the second read of a pet from its cache, and a write through it shows at once', async () => {
    const token = await liveToken();
    const { id, categoryId } = await restPet(server, token, 0);
    // Else the purge of the pet's creation may come between the two reads.
    await purgesDone();
    const query = `/graphql?${new URLSearchParams({ query: `{ pet(id: "${id}") { id name } }` })}`;
    for (const path of [`/api/pets/${id}`, query]) {
      const first = await read(path);
      const second = await read(path);
      expect([first.cache, second.cache]).toEqual(['MISS', 'HIT']);
      expect(second.body).toEqual(first.body);
      // What is meant for Varnish alone stays there; browsers still revalidate.
      expect(second.response.headers.get('surrogate-key')).toBeNull();
      expect(second.response.headers.get('cache-control')).toBe('no-cache');
    }

    // A write through Varnish reaches the server.
    const written = await fetch(`${varnish.url}/api/pets/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Purged', categoryId }),
    });
    expect(written.status).toBe(200);
    expect(written.headers.get('x-cache')).toBe('MISS');
    const origin = await fetch(`${server.url}/api/pets/${id}`);
    expect(((await origin.json()) as { name: string }).name).toBe('Purged');

    // The purge follows the commit: the next reads through Varnish show the new name (polled; the
    // lag itself is measured by npm run bench, "through Varnish").
    for (const path of [`/api/pets/${id}`, query]) {
      let shown = '';
      for (let attempt = 0; attempt < 100 && !shown.includes('Purged'); attempt++) {
        shown = JSON.stringify((await read(path)).body);
        if (!shown.includes('Purged')) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(shown).toContain('Purged');
    }
    // Cached again after the purge.
    expect((await read(`/api/pets/${id}`)).cache).toBe('HIT');
  });

  it('passes reads with a token straight to the server', async () => {
    const token = await liveToken();
    const { id } = await restPet(server, token, 0);
    const headers = { authorization: `Bearer ${token}` };
    for (let round = 0; round < 2; round++) {
      const response = await fetch(`${varnish.url}/api/pets/${id}`, { headers });
      expect(response.headers.get('x-cache')).toBe('MISS');
      expect(response.headers.get('cache-control')).toBe('private, no-store');
    }
  });
});
