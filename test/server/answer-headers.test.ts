import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mintToken } from '../../src/auth/tokens.js';
import { describeDb } from '../helpers/app.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

const secret = 'a-secret-for-the-answer-headers-test-0123456789';

interface RawAnswer {
  status: number;
  /** Each header name (lower-case) with every value it was sent with, in order. */
  headers: Map<string, string[]>;
  body: string;
}

/** One request through Node's own client: its raw headers show a header sent twice. */
function send(
  url: string,
  { method = 'GET', headers = [] as [string, string][], body = '' } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    // Raw pairs, so that a header can be sent twice; then Node adds no Host of its own.
    const raw = [['host', new URL(url).host], ...headers].flat();
    const outgoing = httpRequest(url, { method, headers: raw }, (incoming) => {
      let text = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => {
        text += chunk;
      });
      incoming.on('end', () => {
        const seen = new Map<string, string[]>();
        for (let at = 0; at < incoming.rawHeaders.length; at += 2) {
          const name = (incoming.rawHeaders[at] as string).toLowerCase();
          seen.set(name, [...(seen.get(name) ?? []), incoming.rawHeaders[at + 1] as string]);
        }
        resolve({ status: incoming.statusCode ?? 0, headers: seen, body: text });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Every header sent exactly once, and its value. */
function once(answer: RawAnswer, name: string): string | undefined {
  const values = answer.headers.get(name);
  expect(values?.length ?? 0, `${name} sent ${values?.length ?? 0} times`).toBeLessThanOrEqual(1);
  return values?.[0];
}

describeDb('the headers of an answer, as Node writes them', { timeout: 60_000 }, () => {
  let server: ServerProcess;

  beforeAll(async () => {
    // The rate limit on: its headers are added to the ready answer too.
    server = await startServer({ AUTH_JWT_SECRET: secret, RATE_LIMIT_PER_MINUTE: '1000' });
  }, 60_000);
  afterAll(() => server?.stop());

  it('gives a deprecated REST read its own headers and every late one, each once', async () => {
    const answer = await send(`${server.url}/api/pets/1`, {
      headers: [['X-Request-Id', 'late-headers-1']],
    });
    expect(answer.status).toBe(200);
    for (const values of answer.headers.values()) expect(values).toHaveLength(1);
    expect(once(answer, 'x-request-id')).toBe('late-headers-1');
    expect(once(answer, 'deprecation')).toMatch(/^@\d+$/);
    expect(once(answer, 'sunset')).toMatch(/GMT$/);
    expect(once(answer, 'link')).toBe('</graphql>; rel="successor-version"');
    expect(once(answer, 'ratelimit-limit')).toBe('1000');
    expect(once(answer, 'ratelimit')).toMatch(/^"requests";r=\d+;t=\d+$/);
    expect(once(answer, 'cache-control')).toBe('no-cache');
    expect(once(answer, 'content-type')).toBe('application/json; charset=utf-8');
    expect(Number(once(answer, 'content-length'))).toBe(Buffer.byteLength(answer.body));
    expect(JSON.parse(answer.body)).toMatchObject({ id: 1 });

    // A 304 keeps the late headers, and no body.
    const etag = once(answer, 'etag') as string;
    const unchanged = await send(`${server.url}/api/pets/1`, {
      headers: [['If-None-Match', etag]],
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toBe('');
    expect(once(unchanged, 'etag')).toBe(etag);
    expect(once(unchanged, 'deprecation')).toBe(once(answer, 'deprecation'));
    expect(once(unchanged, 'x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives a GraphQL answer the request id and the rate limit once', async () => {
    const answer = await send(`${server.url}/graphql`, {
      method: 'POST',
      headers: [
        ['content-type', 'application/json'],
        ['x-request-id', 'late-headers-2'],
      ],
      body: JSON.stringify({ query: '{ pet(id: "1") { id } }' }),
    });
    expect(answer.status).toBe(200);
    for (const values of answer.headers.values()) expect(values).toHaveLength(1);
    expect(once(answer, 'x-request-id')).toBe('late-headers-2');
    expect(once(answer, 'ratelimit-limit')).toBe('1000');
    expect(JSON.parse(answer.body)).toMatchObject({ data: { pet: { id: '1' } } });
  });

  it('joins a repeated header, and refuses a repeated Authorization rather than using its first', async () => {
    // Joined as "a, b": not a request id the log accepts, so the answer gets a new one.
    const named = await send(`${server.url}/api/pets/1`, {
      headers: [
        ['x-request-id', 'first'],
        ['x-request-id', 'second'],
      ],
    });
    expect(once(named, 'x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    // Node keeps the first of a repeated User-Agent; the deprecated call is counted by both, joined.
    const agents = await send(`${server.url}/api/pets/1`, {
      headers: [
        ['user-agent', 'first-agent'],
        ['user-agent', 'second-agent'],
      ],
    });
    expect(agents.status).toBe(200);
    const metrics = await fetch(`${server.url}/metrics`).then((response) => response.text());
    expect(metrics).toMatch(
      /^petstore_deprecated_calls_total\{.*client="first-agent, second-agent"\} 1$/m,
    );

    const token = await mintToken(secret, { scopes: ['orders:read'] });
    const alone = await send(`${server.url}/api/pets/1`, {
      headers: [['authorization', `Bearer ${token}`]],
    });
    expect(alone.status).toBe(200);
    const twice = await send(`${server.url}/api/pets/1`, {
      headers: [
        ['authorization', `Bearer ${token}`],
        ['authorization', 'Bearer not-a-token'],
      ],
    });
    expect(twice.status).toBe(401);
    expect(JSON.parse(twice.body)).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
