import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { describeDb, useTestApp } from '../helpers/app.js';
import { makeOrder, makePet } from '../helpers/factories.js';
import { graphqlRequest } from '../helpers/graphql.js';
import { wsUrl } from '../helpers/live.js';
import { startServer } from '../helpers/server.js';

/** The most a refusal may weigh, whatever the request (the defaults of the bounds). */
const MAX_REFUSAL_BYTES = 8 * 1024;

/** `count` distinct names of `length` characters. */
const names = (count: number, length: number) =>
  Array.from({ length: count }, (_, i) => `p${String(i).padStart(6, '0')}`.padEnd(length, 'x'));

/** A body of about 90 KB, just under the 100 KiB limit. */
const big = 90_000;

describeDb('every refusal is bounded, whatever the request', () => {
  const app = useTestApp();

  async function send(request: Request) {
    const response = await app().fetch(request);
    const text = await response.text();
    return { status: response.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
  }
  const rest = (
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ) =>
    send(
      new Request(`http://petstore.test${path}`, {
        method,
        headers: {
          authorization: app().authorization,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body,
      }),
    );
  const gql = (body: unknown, headers: Record<string, string> = {}) =>
    send(graphqlRequest(body, { authorization: app().authorization, ...headers }));

  describe('REST', () => {
    it('lists a few unknown properties and says how many more (1,990 of them, 90 KB)', async () => {
      const unknown = names(1990, 42);
      const body = JSON.stringify({
        name: 'Rex',
        categoryId: 1,
        ...Object.fromEntries(unknown.map((name) => [name, 1])),
      });
      expect(body.length).toBeGreaterThan(big);
      const answer = await rest('POST', '/api/pets', body);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_FAILED');
      expect(answer.bytes).toBeLessThanOrEqual(MAX_REFUSAL_BYTES);
      expect(answer.body.message).toMatch(
        /^Unknown properties "p000000x+", "p000001x+", "p000002x+", "p000003x+", "p000004x+" and 1985 more; allowed: /,
      );
    });

    it('bounds a refusal naming one very long property, or echoing a long value, path or header', async () => {
      const answers = [
        await rest('POST', '/api/pets', JSON.stringify({ name: 'Rex', ['n'.repeat(big)]: 1 })),
        await rest('POST', '/api/pets', JSON.stringify({ name: 7, categoryId: 'x'.repeat(big) })),
        await rest(
          'POST',
          '/api/pets',
          JSON.stringify({ name: 'x'.repeat(big), status: 'y'.repeat(1000) }),
        ),
        await rest('POST', '/api/pets', `{"name": "${'x'.repeat(big)}`),
        await rest('GET', `/api/pets?status=${'s'.repeat(big)}`),
        await rest('GET', `/api/pets/${'9'.repeat(big)}`),
        await rest('GET', `/api/${'p'.repeat(big)}`),
        await rest('GET', `/${'p'.repeat(big)}`),
        await rest('DELETE', `/api/${'d'.repeat(big)}`),
        await rest('POST', '/api/pets', '{}', { 'content-type': `application/${'x'.repeat(big)}` }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.body).toMatchObject({ code: expect.any(String), status: answer.status });
        expect(answer.bytes, answer.body.code).toBeLessThanOrEqual(MAX_REFUSAL_BYTES);
      }
    });

    it('records the bounded refusal a keyed request was answered (the idempotency table grows by little)', async () => {
      const unknown = names(1990, 40);
      const body = JSON.stringify(Object.fromEntries(unknown.map((name) => [name, 1])));
      const key = randomUUID();
      const answer = await rest('POST', '/api/pets', body, { 'idempotency-key': key });
      expect(answer.status).toBe(400);
      const row = await app().database.prisma.idempotencyKey.findFirstOrThrow({
        where: { status: 400, body: { contains: 'p000000x' } },
      });
      expect(row.body).toBe(JSON.stringify(answer.body));
      expect(Buffer.byteLength(row.body ?? '')).toBeLessThanOrEqual(MAX_REFUSAL_BYTES);
      const replay = await rest('POST', '/api/pets', body, { 'idempotency-key': key });
      expect(replay).toEqual(answer);
    });
  });

  describe('GraphQL', () => {
    it('bounds parse, validation and variable errors, however long or many', async () => {
      const fields = names(1990, 40).join(' ');
      const answers = [
        // Long variable names, unused.
        await gql({ query: `query Q($${'v'.repeat(big)}: Int) { __typename }` }),
        // 1,990 unknown fields.
        await gql({ query: `{ ${fields} }` }),
        // An unknown argument with a long name.
        await gql({ query: `{ pets(${'a'.repeat(big)}: 1) { totalCount } }` }),
        // Hundreds of repeats of one argument: one error with a location for each.
        await gql({ query: `{ pets(${'first: 1 '.repeat(600)}) { totalCount } }` }),
        // A syntax error at a long name.
        await gql({ query: `{ __typename } ${'x'.repeat(big)}` }),
        // Long values in variables that do not fit their types.
        await gql({
          query: 'mutation M($input: NewPet!) { createPet(input: $input) { id } }',
          variables: { input: { name: 'x'.repeat(big), categoryId: '1', bogus: 'y'.repeat(1000) } },
        }),
        await gql({
          query: 'query Q($first: Int) { pets(first: $first) { totalCount } }',
          variables: { first: 'z'.repeat(big) },
        }),
        // A batch of ten such documents.
        await gql(Array.from({ length: 10 }, () => ({ query: `{ ${names(200, 40).join(' ')} }` }))),
      ];
      for (const answer of answers) {
        expect(answer.status).toBeGreaterThanOrEqual(200);
        const results = Array.isArray(answer.body) ? answer.body : [answer.body];
        for (const result of results) expect(result.errors?.length).toBeGreaterThan(0);
        expect(answer.bytes, JSON.stringify(answer.body).slice(0, 200)).toBeLessThanOrEqual(
          MAX_REFUSAL_BYTES,
        );
      }
    });

    it('records the refusal a keyed mutation was answered, no more (60 unknown fields of 110 characters)', async () => {
      const key = randomUUID();
      const unknown = Object.fromEntries(names(60, 110).map((name) => [name, 'x']));
      const send = async () => {
        const response = await app().fetch(
          graphqlRequest(
            {
              query: 'mutation M($input: NewPet!) { createPet(input: $input) { id } }',
              variables: { input: { name: 'Rex', categoryId: '1', ...unknown } },
            },
            { authorization: app().authorization, 'idempotency-key': key },
          ),
        );
        return { status: response.status, text: await response.text() };
      };
      const answer = await send();
      expect(answer.status).toBe(400);
      const errors = JSON.parse(answer.text).errors as { message: string }[];
      expect(errors).toHaveLength(6);
      expect(errors.at(-1)?.message).toMatch(/^\d+ more errors were left out/);
      const row = await app().database.prisma.idempotencyKey.findFirstOrThrow({
        where: { status: 400, body: { contains: 'NewPet' } },
      });
      // What the key keeps is what was answered: the same errors, each with the HTTP status it
      // gives the answer (`extensions.http`, which is not sent), and no more.
      const recorded = JSON.parse(row.body ?? '').errors as { extensions: { http?: unknown } }[];
      expect(
        recorded.map(({ extensions: { http, ...extensions }, ...error }) => ({
          ...error,
          extensions,
        })),
      ).toEqual(errors);
      expect(Buffer.byteLength(row.body ?? '')).toBeLessThanOrEqual(MAX_REFUSAL_BYTES);
      const replay = await send();
      expect(replay).toEqual(answer);
    });

    // Validation stops at one error more than a refusal lists: past that, the count is a floor.
    it('says how many errors were left out', async () => {
      const errorsOf = async (fields: number) => {
        const answer = await gql({ query: `{ ${names(fields, 20).join(' ')} }` });
        return answer.body.errors as { message: string; extensions: { code: string } }[];
      };
      const six = await errorsOf(6);
      expect(six).toHaveLength(6);
      expect(six.at(-1)?.message).toMatch(/^1 more error was left out/);
      const many = await errorsOf(300);
      expect(many).toHaveLength(6);
      expect(many.at(-1)?.message).toMatch(/^At least 2 more errors were left out/);
      expect(new Set(many.map((error) => error.extensions.code))).toEqual(
        new Set(['GRAPHQL_VALIDATION_FAILED']),
      );
    });
  });
});

describeDb('a refused subscribe message is bounded too (WebSocket)', { timeout: 60_000 }, () => {
  it('answers 1,990 unknown fields with a small error message', async () => {
    const server = await startServer();
    const socket = new WebSocket(wsUrl(server), 'graphql-transport-ws');
    try {
      const messages: string[] = [];
      socket.on('message', (data) => messages.push(String(data)));
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(JSON.stringify({ type: 'connection_init' }));
      const query = `subscription { ${names(1990, 40).join(' ')} }`;
      socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query } }));
      const deadline = Date.now() + 10_000;
      while (!messages.some((text) => text.includes('"error"')) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const error = messages.find((text) => text.includes('"error"')) ?? '';
      expect(JSON.parse(error).payload[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(Buffer.byteLength(error)).toBeLessThanOrEqual(MAX_REFUSAL_BYTES);
    } finally {
      socket.close();
      await server.stop();
    }
  });
});

describeDb('a recorded response is bounded in bytes', () => {
  const app = useTestApp({ IDEMPOTENCY_RECORD_MAX_BYTES: '4096' });

  it('refuses and rolls back a keyed mutation whose response would be larger than the bound', async () => {
    const pet = await makePet(app(), { quantity: 5 });
    for (let i = 0; i < 60; i++) await makeOrder(app(), { petId: pet.id });
    const query = `mutation Big($petId: ID!) { placeOrder(input: { petId: $petId, quantity: 1 }) {
      id pet { orders(first: 100) { edges { node { id petId quantity shipDate complete version } } } } } }`;
    const key = randomUUID();
    const send = () =>
      app().fetch(
        graphqlRequest(
          { query, variables: { petId: String(pet.id) } },
          { authorization: app().authorization, 'idempotency-key': key },
        ),
      );
    const response = await send();
    const body = (await response.json()) as {
      data?: unknown;
      errors: { message: string; extensions: { code: string } }[];
    };
    expect(response.status).toBe(400);
    expect(body.errors.map((error) => error.extensions.code)).toEqual(['VALIDATION_FAILED']);
    expect(body.errors[0]?.message).toMatch(/4096 bytes/);
    // Nothing was written, and what the key keeps is small.
    expect(await app().database.prisma.order.count({ where: { petId: pet.id } })).toBe(60);
    const rows = await app().database.prisma.idempotencyKey.findMany();
    for (const row of rows) expect(Buffer.byteLength(row.body ?? '')).toBeLessThanOrEqual(4096);
    // The same mutation selecting less, with a new key, runs.
    const small = await app().fetch(
      graphqlRequest(
        {
          query:
            'mutation Small($petId: ID!) { placeOrder(input: { petId: $petId, quantity: 1 }) { id } }',
          variables: { petId: String(pet.id) },
        },
        { authorization: app().authorization, 'idempotency-key': randomUUID() },
      ),
    );
    expect(small.status).toBe(200);
  });
});
