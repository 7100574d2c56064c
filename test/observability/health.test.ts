import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { expect, inject, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTestApp, database, describeDb, useTestApp } from '../helpers/app.js';

const get = (path: string) => new Request(`http://petstore.test${path}`);

async function answer(app: { fetch(request: Request): Promise<Response> }, path: string) {
  const response = await app.fetch(get(path));
  return {
    status: response.status,
    cacheControl: response.headers.get('cache-control'),
    body: await response.json(),
  };
}

const unavailable = {
  status: 503,
  cacheControl: 'no-store',
  body: { code: 'UNAVAILABLE', message: expect.stringContaining('database'), status: 503 },
};

describeDb('health endpoints', () => {
  const app = useTestApp();

  it('/health/live answers 200 while the process runs', async () => {
    expect(await answer(app(), '/health/live')).toEqual({
      status: 200,
      cacheControl: 'no-store',
      body: { status: 'ok' },
    });
  });

  it('/health/ready answers 200 when the database answers', async () => {
    expect(await answer(app(), '/health/ready')).toEqual({
      status: 200,
      cacheControl: 'no-store',
      body: { status: 'ok', checks: { database: 'ok' } },
    });
  });

  it('/health/ready turns 503 UNAVAILABLE once the database is closed; live stays 200', async () => {
    const doomed = await createTestApp();
    try {
      expect((await answer(doomed, '/health/ready')).status).toBe(200);
      await doomed.database.close();
      expect(await answer(doomed, '/health/ready')).toEqual(unavailable);
      expect((await answer(doomed, '/health/live')).status).toBe(200);
    } finally {
      await doomed.close();
    }
  });

  it.runIf(database === 'postgresql')(
    '/health/ready turns 503 UNAVAILABLE when the PostgreSQL database is dropped',
    async () => {
      const admin = new pg.Client({ connectionString: inject('postgresUrl') ?? undefined });
      await admin.connect();
      const name = `petstore_gone_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(inject('postgresUrl') ?? '');
      url.pathname = `/${name}`;
      const gone = await createApp(
        loadConfig({ DATABASE_URL: url.toString(), SEED: 'false', LOG_LEVEL: 'silent' }),
      );
      try {
        expect((await answer(gone, '/health/ready')).status).toBe(200);
        await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
        expect(await answer(gone, '/health/ready')).toEqual(unavailable);
      } finally {
        await gone.close();
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    },
  );
});
