import { auditServer } from 'graphql-http';
import { expect, it } from 'vitest';
import { DEFAULT_BODY_BYTES as MAX_BODY_BYTES } from '../../src/config.js';
import { describeDb, useTestApp } from '../helpers/app.js';

const GRAPHQL = 'http://petstore.test/graphql';

describeDb('the HTTP surface outside /api', () => {
  const app = useTestApp();

  it('refuses a GraphQL body over the limit with 413 in the GraphQL error shape', async () => {
    const query = `{ categories { id } } #${'x'.repeat(MAX_BODY_BYTES)}`;
    const response = await app().fetch(
      new Request(GRAPHQL, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
        },
        body: JSON.stringify({ query }),
      }),
    );
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toBe(
      'application/graphql-response+json; charset=utf-8',
    );
    expect(await response.json()).toEqual({
      errors: [
        {
          message: 'The request body is larger than the limit of 102400 bytes',
          extensions: { code: 'PAYLOAD_TOO_LARGE', status: 413 },
        },
      ],
    });
  });

  it('still answers a GraphQL body just under the limit', async () => {
    const padding = MAX_BODY_BYTES - 200;
    const response = await app().fetch(
      new Request(GRAPHQL, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ categories { id } } #${'x'.repeat(padding)}` }),
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: { categories: [] },
      extensions: { cost: { requestedQueryCost: 0, actualQueryCost: 0 } },
    });
  });

  it('answers another method on /graphql with 405, Allow and a GraphQL error', async () => {
    const response = await app().fetch(new Request(GRAPHQL, { method: 'PUT', body: '{}' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, OPTIONS');
    expect(await response.json()).toEqual({
      errors: [
        {
          message: 'PUT is not allowed on /graphql',
          extensions: { code: 'METHOD_NOT_ALLOWED', status: 405 },
        },
      ],
    });
  });

  it('answers an unknown path with 404 NOT_FOUND in the Error shape', async () => {
    const response = await app().fetch(new Request('http://petstore.test/nowhere'));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      code: 'NOT_FOUND',
      message: 'No route GET /nowhere',
      status: 404,
    });
  });

  it("passes graphql-http's server audits", async () => {
    const results = await auditServer({
      url: GRAPHQL,
      fetchFn: (input: RequestInfo, init?: RequestInit) => app().fetch(new Request(input, init)),
    });
    const failures = results.filter((result) => result.status === 'error');
    expect(failures.map((result) => `${result.id} ${result.name}`)).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(50);
  });
});
