import { expect, it } from 'vitest';
import { createTestApp, describeDb, useTestApp } from '../helpers/app.js';
import { graphqlRequest as postGraphQL } from '../helpers/graphql.js';
import { captureLogs } from '../helpers/logs.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const get = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://petstore.test${path}`, { headers });

describeDb('access log', () => {
  const logs = captureLogs();
  const app = useTestApp({}, { logger: logs.logger });

  it('writes one JSON line per request: id, method, path, status, duration', async () => {
    logs.clear();
    const response = await app().fetch(get('/health/live'));
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(uuid);
    expect(logs.accessLines()).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        requestId,
        method: 'GET',
        path: '/health/live',
        status: 200,
        durationMs: expect.any(Number),
        msg: 'request',
      },
    ]);
  });

  it('accepts a sane X-Request-Id, echoes it and logs it', async () => {
    logs.clear();
    const response = await app().fetch(get('/health/live', { 'x-request-id': 'lb-7f3a.42:x' }));
    expect(response.headers.get('x-request-id')).toBe('lb-7f3a.42:x');
    expect(logs.accessLines()[0]?.requestId).toBe('lb-7f3a.42:x');
  });

  it.each([
    ['a space', 'two words'],
    ['markup', '<script>'],
    ['a quote', 'id"1'],
    ['129 characters', 'x'.repeat(129)],
  ])('replaces an X-Request-Id with %s by a fresh one', async (_, incoming) => {
    const response = await app().fetch(get('/health/live', { 'x-request-id': incoming }));
    expect(response.headers.get('x-request-id')).toMatch(uuid);
  });

  it('echoes the request id on every response, errors included', async () => {
    logs.clear();
    const responses = await Promise.all([
      app().fetch(get('/no/such/route')),
      app().fetch(postGraphQL({ query: '{ pets(' })),
      app().fetch(
        new Request('http://petstore.test/graphql', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/graphql-response+json',
          },
          body: '{not json',
        }),
      ),
    ]);
    expect(responses.map((response) => response.status)).toEqual([404, 400, 400]);
    const ids = responses.map((response) => response.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(uuid);
    expect(new Set(ids).size).toBe(3);
    expect(
      logs
        .accessLines()
        .map((line) => line.requestId)
        .sort(),
    ).toEqual([...ids].sort());
  });

  it('names the GraphQL operation instead of leaving only the path', async () => {
    logs.clear();
    await app().fetch(
      postGraphQL({ query: 'query PetsForTheLog { pets(first: 1) { totalCount } }' }),
    );
    await app().fetch(postGraphQL({ query: '{ categories { id } }' }));
    await app().fetch(
      postGraphQL({
        query: 'query A { categories { id } } query B { pets { totalCount } }',
        operationName: 'B',
      }),
    );
    expect(
      logs.accessLines().map(({ method, path, operation, status }) => ({
        method,
        path,
        operation,
        status,
      })),
    ).toEqual([
      { method: 'POST', path: '/graphql', operation: 'PetsForTheLog', status: 200 },
      { method: 'POST', path: '/graphql', operation: 'Anonymous', status: 200 },
      { method: 'POST', path: '/graphql', operation: 'B', status: 200 },
    ]);
  });

  it('names the client a request names in its headers (REST and GraphQL alike), never raw control characters', async () => {
    logs.clear();
    await app().fetch(
      get('/api/categories', {
        'graphql-client-name': 'legacy-shop',
        'graphql-client-version': '2.3.1',
      }),
    );
    await app().fetch(
      postGraphQL(
        { query: '{ categories { id } }' },
        { 'apollographql-client-name': 'shop-ios', 'apollographql-client-version': '7.0' },
      ),
    );
    await app().fetch(get('/api/categories', { 'graphql-client-name': 'red\u001b[31m' }));
    await app().fetch(get('/api/categories'));
    expect(
      logs
        .accessLines()
        .map(({ path, client, clientVersion }) => ({ path, client, clientVersion })),
    ).toEqual([
      { path: '/api/categories', client: 'legacy-shop', clientVersion: '2.3.1' },
      { path: '/graphql', client: 'shop-ios', clientVersion: '7.0' },
      { path: '/api/categories', client: 'red?[31m', clientVersion: 'unknown' },
      // A request that names no client has neither field.
      { path: '/api/categories', client: undefined, clientVersion: undefined },
    ]);
  });

  it('never logs Authorization headers, cookies, tokens or query strings', async () => {
    logs.clear();
    const secrets = ['eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig', 'session-cookie-value', 'query-token'];
    await app().fetch(
      get(`/health/live?token=${secrets[2]}`, {
        authorization: `Bearer ${secrets[0]}`,
        cookie: `session=${secrets[1]}`,
      }),
    );
    await app().fetch(
      postGraphQL(
        { query: 'query Secretive { categories { id } }', variables: { token: secrets[2] } },
        { authorization: `Bearer ${secrets[0]}` },
      ),
    );
    expect(logs.accessLines()).toHaveLength(2);
    const written = JSON.stringify(logs.lines);
    for (const secret of secrets) expect(written).not.toContain(secret);
    expect(logs.accessLines()[0]?.path).toBe('/health/live');
  });

  it('redacts secret-looking keys in any log line', () => {
    logs.clear();
    logs.logger.info(
      {
        authorization: 'Bearer abc',
        token: 'abc',
        headers: { authorization: 'Bearer abc', cookie: 'a=b' },
        auth: { jwtSecret: 'abc', password: 'abc' },
      },
      'context',
    );
    expect(logs.lines[0]).toMatchObject({
      authorization: '[redacted]',
      token: '[redacted]',
      headers: { authorization: '[redacted]', cookie: '[redacted]' },
      auth: { jwtSecret: '[redacted]', password: '[redacted]' },
    });
    expect(JSON.stringify(logs.lines)).not.toContain('abc');
  });
});

describeDb('LOG_LEVEL', () => {
  it('at warn, answered requests are not logged; server errors are, with every line of the request carrying its id', async () => {
    const logs = captureLogs('warn');
    const app = await createTestApp({ LOG_LEVEL: 'warn' }, { logger: logs.logger });
    try {
      await app.fetch(get('/health/live'));
      await app.fetch(get('/no/such/route'));
      expect(logs.accessLines()).toEqual([]);
      await app.database.close();
      const response = await app.fetch(get('/health/ready'));
      expect(response.status).toBe(503);
      expect(logs.accessLines()).toEqual([
        expect.objectContaining({ level: 50, path: '/health/ready', status: 503 }),
      ]);
      // The readiness check's own warning carries the request id too.
      expect(logs.lines.map(({ level, msg, requestId }) => ({ level, msg, requestId }))).toEqual([
        {
          level: 40,
          msg: 'not ready: the database cannot be reached',
          requestId: response.headers.get('x-request-id'),
        },
        { level: 50, msg: 'request', requestId: response.headers.get('x-request-id') },
      ]);
    } finally {
      await app.close();
    }
  });
});

describeDb('access log: what went wrong, and what is routine', () => {
  const logs = captureLogs('debug');
  const app = useTestApp({}, { logger: logs.logger });
  const summary = () =>
    logs.accessLines().map(({ level, path, status, code }) => ({ level, path, status, code }));

  it('carries the error code of every 4xx, on both edges', async () => {
    logs.clear();
    await app().fetch(get('/api/no/such/route'));
    await app().fetch(get('/api/pets/abc'));
    await app().fetch(get('/api/pets', { authorization: 'Bearer not-a-token' }));
    await app().fetch(postGraphQL({ query: '{ pets(' }));
    await app().fetch(get('/graphql?query=%7B%20categories%20%7B%20id%20%7D%20%7D', {}));
    expect(summary()).toEqual([
      { level: 30, path: '/api/no/such/route', status: 404, code: 'NOT_FOUND' },
      { level: 30, path: '/api/pets/abc', status: 400, code: 'VALIDATION_FAILED' },
      { level: 30, path: '/api/pets', status: 401, code: 'UNAUTHENTICATED' },
      { level: 30, path: '/graphql', status: 400, code: 'GRAPHQL_PARSE_FAILED' },
      { level: 30, path: '/graphql', status: 200, code: undefined },
    ]);
  });

  it('carries the code of a refusal replayed for its Idempotency-Key', async () => {
    const order = async () =>
      app().fetch(
        new Request('http://petstore.test/api/store/orders', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${await app().token()}`,
            'content-type': 'application/json',
            'idempotency-key': 'access-log-replay',
          },
          body: JSON.stringify({ petId: 999999999, quantity: 1 }),
        }),
      );
    logs.clear();
    const [first, again] = [await order(), await order()];
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect([first.status, again.status]).toEqual([422, 422]);
    expect(summary().map(({ code }) => code)).toEqual(['UNKNOWN_PET', 'UNKNOWN_PET']);
  });

  it('carries the codes of GraphQL errors answered with 200: partial data, request errors under application/json', async () => {
    logs.clear();
    // Anonymous: `orders` fails alone, the pets arrive.
    await app().fetch(
      postGraphQL({ query: '{ pets(first: 1) { totalCount } orders { totalCount } }' }),
    );
    await app().fetch(postGraphQL({ query: '{ nope }' }, { accept: 'application/json' }));
    expect(summary()).toEqual([
      { level: 30, path: '/graphql', status: 200, code: 'UNAUTHENTICATED' },
      { level: 30, path: '/graphql', status: 200, code: 'GRAPHQL_VALIDATION_FAILED' },
    ]);
  });

  it('writes the lines of static assets at debug, so that a page load is one info line', async () => {
    logs.clear();
    await app().fetch(get('/api/docs', { accept: 'text/html' }));
    await app().fetch(get('/assets/swagger-ui/init.js'));
    expect(summary()).toEqual([
      { level: 30, path: '/api/docs', status: 200, code: undefined },
      { level: 20, path: '/assets/swagger-ui/init.js', status: 200, code: undefined },
    ]);
  });
});
