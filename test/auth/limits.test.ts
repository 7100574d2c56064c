import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { type Client, withAuthorization } from '../helpers/client.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { expectError, rest } from '../helpers/rest.js';

function postGraphQL(app: Client, body: unknown, headers: Record<string, string> = {}) {
  return app.fetch(graphqlRequest(body, headers));
}

/** `inventory { pet { inventory { pet { … } } } }`: a valid query `levels` fields deep. */
function deep(levels: number): string {
  const path = Array.from({ length: levels - 1 }, (_, i) => (i % 2 === 0 ? 'pet' : 'inventory'));
  const leaf = path.length % 2 === 0 ? 'quantity' : 'id';
  return `{ inventory(petId: "1") { ${path.reduceRight((inner, field) => `${field} { ${inner} }`, leaf)} } }`;
}

describeDb('GraphQL query limits', () => {
  const app = useTestApp({ GRAPHQL_MAX_COST: '400' });

  it.each([
    ['depth', deep(12)],
    [
      'aliases',
      `{ ${Array.from({ length: 21 }, (_, i) => `a${i}: categories { id }`).join(' ')} }`,
    ],
    ['tokens', `{ categories { ${'id '.repeat(2100)} } }`],
    [
      'cost',
      '{ pets(first: 100) { edges { node { category { pets { edges { node { id } } } } } } } }',
    ],
  ])('rejects a query over the %s limit with 400 QUERY_TOO_COMPLEX', async (_limit, query) => {
    const response = await postGraphQL(app(), { query });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.data).toBeUndefined();
    expect(body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', status: 400 });
  });

  it('accepts a query within every limit', async () => {
    const response = await postGraphQL(app(), { query: deep(3) });
    expect(response.status).toBe(200);
  });

  it('runs a batch of up to 10 operations and refuses a larger one', async () => {
    const ok = await postGraphQL(
      app(),
      Array.from({ length: 10 }, () => ({ query: '{ categories { id } }' })),
    );
    expect(ok.status).toBe(200);
    expect(await ok.json()).toHaveLength(10);

    const tooMany = await postGraphQL(
      app(),
      Array.from({ length: 11 }, () => ({ query: '{ categories { id } }' })),
    );
    expect(tooMany.status).toBe(400);
    const body = await tooMany.json();
    expect(body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', status: 400 });
  });
});

describeDb('rate limiting', () => {
  const app = useTestApp({ RATE_LIMIT_PER_MINUTE: '10' });

  it('counts exactly under concurrent requests and answers 429 with Retry-After beyond the budget', async () => {
    const authorization = `Bearer ${await app().token([], { subject: 'burst-client' })}`;
    const responses = await Promise.all(
      Array.from({ length: 25 }, () =>
        postGraphQL(app(), { query: '{ categories { id } }' }, { authorization }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);

    const ok = responses.find((response) => response.status === 200);
    expect(ok?.headers.get('ratelimit-limit')).toBe('10');
    expect(Number(ok?.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    const remaining = responses
      .filter((response) => response.status === 200)
      .map((response) => Number(response.headers.get('ratelimit-remaining')))
      .sort((a, b) => a - b);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    const limited = responses.find((response) => response.status === 429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited?.headers.get('ratelimit-remaining')).toBe('0');
    const body = await limited?.json();
    expect(body.errors[0].extensions).toEqual({ code: 'RATE_LIMITED', status: 429 });
  });

  it('counts a request with an invalid token before it refuses it with 401', async () => {
    const headers = { authorization: 'Bearer not-a-token' };
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const response = await postGraphQL(app(), { query: '{ categories { id } }' }, headers);
      statuses.push(response.status);
      if (i === 0) {
        expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
        expect(response.headers.get('ratelimit-remaining')).toBe('9');
      }
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
  });

  it('gives every client its own budget', async () => {
    const authorization = `Bearer ${await app().token([], { subject: 'another-client' })}`;
    const response = await postGraphQL(
      app(),
      { query: '{ categories { id } }' },
      { authorization },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-remaining')).toBe('9');
  });
});

describeDb('rate limiting turned off', () => {
  const app = useTestApp({ RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_COST_PER_MINUTE: '0' });

  it('sends no RateLimit headers, and no budget in extensions.cost', async () => {
    const response = await postGraphQL(app(), { query: '{ categories { id } }' });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-limit')).toBeNull();
    expect(response.headers.get('ratelimit-policy')).toBeNull();
    expect(response.headers.get('ratelimit')).toBeNull();
    expect((await response.json()).extensions).toEqual({
      cost: { requestedQueryCost: 0, actualQueryCost: 0 },
    });
    const restResponse = await rest(app(), 'GET', '/categories');
    expect(restResponse.headers.get('ratelimit-policy')).toBeNull();
    expect(restResponse.headers.get('ratelimit')).toBeNull();
  });
});

describeDb('request time limit', () => {
  const app = useTestApp({ REQUEST_TIMEOUT_MS: '300' });

  it('answers 503 TIMEOUT when a request runs past the limit', async () => {
    // A body that never finishes arriving keeps the request running past the limit.
    let stall: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        stall = controller;
        controller.enqueue(new TextEncoder().encode('{"query":'));
      },
    });
    const response = await app().fetch(
      new Request('http://petstore.test/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
        },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    stall?.close();
    expect(response.status).toBe(503);
    expect((await response.json()).errors[0].extensions).toEqual({ code: 'TIMEOUT', status: 503 });
  });
});

describeDb('limits over REST', () => {
  const app = useTestApp({ RATE_LIMIT_PER_MINUTE: '3', REQUEST_TIMEOUT_MS: '300' });

  it('answers 429 RATE_LIMITED in the Error shape with Retry-After and RateLimit headers', async () => {
    const client = withAuthorization(
      app(),
      `Bearer ${await app().token([], { subject: 'rest-client' })}`,
    );
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await rest(client, 'GET', '/categories')).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await rest(client, 'GET', '/categories');
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
  });

  it('answers 503 TIMEOUT in the Error shape past the time limit', async () => {
    const client = withAuthorization(
      app(),
      `Bearer ${await app().token(['pets:write'], { subject: 'slow-client' })}`,
    );
    let stall: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        stall = controller;
        controller.enqueue(new TextEncoder().encode('{"name":'));
      },
    });
    const response = await rest(client, 'POST', '/categories', {
      body,
      contentType: 'application/json',
    });
    stall?.close();
    expectError(response, 503, 'TIMEOUT');
  });
});
