import { afterAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { liveSecret, liveToken, restPet } from '../helpers/live.js';
import { childDatabase } from '../helpers/process.js';
import { type Recorded, startRecordingServer } from '../helpers/recording-server.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const tagsOf = (request: Recorded) => String(request.headers['xkey-purge']).split(' ');

describeDb('a purge made while the CDN is down', { timeout: 90_000 }, () => {
  const db = childDatabase();
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await db.drop();
  });

  it('arrives once the CDN is back, across a kill -9 of the server', async () => {
    // A port that refuses connections: the CDN is down.
    const probe = await startRecordingServer();
    const url = probe.url;
    const port = Number(new URL(url).port);
    await probe.close();
    const env = {
      DATABASE_URL: db.url,
      AUTH_JWT_SECRET: liveSecret,
      SEED: 'false',
      EDGE_PURGE_URL: url,
    };
    const first = await startServer(env);
    servers.push(first);
    const token = await liveToken();
    const { id } = await restPet(first, token, 0);
    // The purger has tried and failed at least once.
    await first.waitForLog((line) => line.msg.startsWith('cannot purge the CDN'));
    first.child.kill('SIGKILL');
    await first.exited;

    const cdn = await startRecordingServer(port);
    try {
      const second = await startServer(env);
      servers.push(second);
      // The dead process's lease lapses (LEASE_MS), then the new one purges from the cursor.
      await cdn.until(
        (received) => received.some((request) => tagsOf(request).includes(`pet:${id}`)),
        30_000,
      );
      const tags = cdn.received.flatMap(tagsOf);
      expect(tags).toEqual(expect.arrayContaining([`pet:${id}`, 'pet:*', 'category:*']));
    } finally {
      await cdn.close();
    }
  });
});
