import { expect, it } from 'vitest';
import { describeDb, type TestApp, useTestApp } from '../helpers/app.js';

const allowedOrigin = 'https://app.example.com';
const otherOrigin = 'https://evil.example.net';
const query = JSON.stringify({ query: '{ categories { id } }' });

/** The CORS headers of a response, by lowercase name. */
function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries(
    [...response.headers].filter(([name]) => name.startsWith('access-control-')),
  );
}

const preflight = (app: TestApp, path: string, origin: string, method = 'POST') =>
  app.fetch(
    new Request(`http://localhost${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type, authorization',
      },
    }),
  );

const graphqlPost = (app: TestApp, origin: string, headers: Record<string, string> = {}) =>
  app.fetch(
    new Request('http://localhost/graphql', {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json', ...headers },
      body: query,
    }),
  );

const restGet = (app: TestApp, origin: string, headers: Record<string, string> = {}) =>
  app.fetch(new Request('http://localhost/api/pets', { headers: { origin, ...headers } }));

describeDb('CORS with CORS_ORIGINS set to a list', () => {
  const app = useTestApp({ CORS_ORIGINS: `${allowedOrigin}, http://localhost:5173` });

  it.each(['/graphql', '/api/pets', '/api/store/orders/1'])(
    'answers a preflight from a listed origin on %s with 204 and its headers',
    async (path) => {
      const response = await preflight(app(), path, allowedOrigin);
      expect(response.status).toBe(204);
      expect(corsHeaders(response)).toEqual({
        'access-control-allow-origin': allowedOrigin,
        'access-control-allow-methods': 'GET,HEAD,POST,PUT,PATCH,DELETE',
        'access-control-allow-headers': 'content-type,authorization',
        'access-control-expose-headers': expect.stringContaining('X-Total-Count'),
        'access-control-max-age': '600',
      });
      expect(response.headers.get('vary')).toContain('Origin');
    },
  );

  it('lets a listed origin read GraphQL and REST answers, errors included', async () => {
    const graphql = await graphqlPost(app(), allowedOrigin);
    expect(graphql.status).toBe(200);
    expect(corsHeaders(graphql)).toMatchObject({ 'access-control-allow-origin': allowedOrigin });
    expect(graphql.headers.get('vary')).toContain('Origin');

    const rest = await restGet(app(), allowedOrigin);
    expect(rest.status).toBe(200);
    expect(corsHeaders(rest)).toEqual({
      'access-control-allow-origin': allowedOrigin,
      'access-control-expose-headers': expect.stringMatching(/X-Total-Count.*Location/),
    });

    // A refused token is still readable by the page that sent it.
    const refused = await restGet(app(), allowedOrigin, { authorization: 'Bearer nonsense' });
    expect(refused.status).toBe(401);
    expect(corsHeaders(refused)).toMatchObject({ 'access-control-allow-origin': allowedOrigin });
  });

  it('never allows credentials', async () => {
    for (const response of [
      await preflight(app(), '/graphql', allowedOrigin),
      await graphqlPost(app(), allowedOrigin),
      await restGet(app(), allowedOrigin),
    ]) {
      expect(response.headers.has('access-control-allow-credentials')).toBe(false);
    }
  });

  it('gives an origin not in the list no CORS header, on both edges', async () => {
    const graphqlPreflight = await preflight(app(), '/graphql', otherOrigin);
    expect(corsHeaders(graphqlPreflight)).toEqual({});
    const restPreflight = await preflight(app(), '/api/pets', otherOrigin);
    expect(corsHeaders(restPreflight)).toEqual({});
    expect(restPreflight.status).toBe(405);

    const graphql = await graphqlPost(app(), otherOrigin);
    expect(graphql.status).toBe(200);
    expect(corsHeaders(graphql)).toEqual({});
    const rest = await restGet(app(), otherOrigin);
    expect(rest.status).toBe(200);
    expect(corsHeaders(rest)).toEqual({});
    // A cache must not hand this answer to a listed origin, nor the reverse.
    expect(rest.headers.get('vary')).toContain('Origin');
  });

  it('covers only /graphql and /api: probes and metrics stay same-origin', async () => {
    for (const path of ['/health/live', '/metrics']) {
      const response = await app().fetch(
        new Request(`http://localhost${path}`, { headers: { origin: allowedOrigin } }),
      );
      expect(response.status, path).toBe(200);
      expect(corsHeaders(response), path).toEqual({});
    }
  });
});

describeDb('CORS by default (no CORS_ORIGINS): same-origin only', () => {
  const app = useTestApp();

  it('sends no CORS header to any origin, for preflights or requests, on both edges', async () => {
    const responses = [
      await preflight(app(), '/graphql', allowedOrigin),
      await preflight(app(), '/api/pets', allowedOrigin),
      await graphqlPost(app(), allowedOrigin),
      await restGet(app(), allowedOrigin),
      await graphqlPost(app(), 'http://localhost'),
    ];
    expect(responses.map(corsHeaders)).toEqual([{}, {}, {}, {}, {}]);
    // The REST preflight finds no OPTIONS route: the usual 405 with `Allow`.
    expect(responses[1]?.status).toBe(405);
  });
});

describeDb('CORS with CORS_ORIGINS=*', () => {
  const app = useTestApp({ CORS_ORIGINS: '*' });

  it('allows any origin with a wildcard and never with credentials', async () => {
    const pre = await preflight(app(), '/api/pets', otherOrigin, 'PUT');
    expect(pre.status).toBe(204);
    expect(corsHeaders(pre)).toMatchObject({ 'access-control-allow-origin': '*' });
    const response = await graphqlPost(app(), otherOrigin);
    expect(corsHeaders(response)).toMatchObject({ 'access-control-allow-origin': '*' });
    for (const each of [pre, response]) {
      expect(each.headers.has('access-control-allow-credentials')).toBe(false);
    }
  });
});
