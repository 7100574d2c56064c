import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';

describeDb('GraphQL over HTTP, through the real node:http listener', () => {
  const app = useTestApp();
  let server: ReturnType<typeof serve>;
  let url = '';

  beforeAll(async () => {
    server = serve({ fetch: app().fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("passes graphql-http's server audits", async () => {
    const results = await auditServer({ url });
    const failures = results
      .filter((result) => result.status !== 'ok')
      .map((result) => `${result.id} ${result.name}`);
    expect(failures).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(61);
  });
});
