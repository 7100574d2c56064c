import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useBodyLimit } from '../../src/graphql/body-limit.js';

const yoga = createYoga({
  schema: createSchema({
    typeDefs: 'type Query { ok: Boolean }',
    resolvers: { Query: { ok: () => true } },
  }),
  maxRequestBodySize: false,
  plugins: [useBodyLimit(64)],
  logging: false,
});

const small = JSON.stringify({ query: '{ ok }' });
const large = JSON.stringify({ query: `{ ok ${' '.repeat(100)}}` });

/** A body without Content-Length, as a chunked upload arrives. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 16) controller.enqueue(bytes.slice(at, at + 16));
      controller.close();
    },
  });
}

async function post(
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
) {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    duplex: 'half',
  } as RequestInit;
  const response = await yoga.fetch('http://petstore.test/graphql', init);
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('the GraphQL request body limit', () => {
  it('accepts bodies within the limit, with or without Content-Length', async () => {
    const expected = { status: 200, body: { data: { ok: true } } };
    expect(await post(small, { 'content-length': String(small.length) })).toEqual(expected);
    expect(await post(chunked(small))).toEqual(expected);
  });

  it('answers 413 for a declared Content-Length over the limit', async () => {
    const response = await post(large, { 'content-length': String(large.length) });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ errors: [{ message: 'Request body too large' }] });
  });

  it('answers 413 for a chunked body that grows over the limit', async () => {
    const response = await post(chunked(large));
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ errors: [{ message: 'Request body too large' }] });
  });

  it('answers 400 for a malformed Content-Length', async () => {
    const response = await post(small, { 'content-length': '17, 17' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      errors: [{ message: 'Content-Length header is invalid.' }],
    });
  });
});
