import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { captureLogs } from '../helpers/logs.js';

function post(body: unknown, accept = 'application/graphql-response+json') {
  return new Request('http://petstore.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
}

describeDb('GraphQL request errors', () => {
  const logs = captureLogs('warn');
  const app = useTestApp({ LOG_LEVEL: 'warn' }, { logger: logs.logger });

  it('answers a syntax error with 400 GRAPHQL_PARSE_FAILED', async () => {
    const response = await app().fetch(post({ query: '{ pets { ' }));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/application\/graphql-response\+json/);
    const body = await response.json();
    expect(body.errors[0].extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED', status: 400 });
  });

  it('answers an unknown field with 400 GRAPHQL_VALIDATION_FAILED', async () => {
    const response = await app().fetch(post({ query: '{ pets { edges { node { nickname } } } }' }));
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', status: 400 });
    expect(body.errors[0].message).toMatch(/nickname/);
  });

  // graphql-js gives up comparing fields past a budget, with one error object it shares between
  // documents (coded in place): each document so refused gets it, with the same code.
  it('answers a document too costly to check for conflicts with 400 GRAPHQL_VALIDATION_FAILED', async () => {
    const costly = `{ ${'__typename '.repeat(1980)} }`;
    for (const query of [costly, costly.replace('{', '{ a: pets(first: 1) { totalCount }')]) {
      const response = await app().fetch(post({ query }));
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.errors).toEqual([
        {
          message: 'Validation aborted.',
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', status: 400 },
        },
      ]);
    }
  });

  it('rejects first over 100 with VALIDATION_FAILED and a bad cursor likewise', async () => {
    for (const query of [
      '{ pets(first: 101) { totalCount } }',
      '{ pets(after: "not-a-cursor") { totalCount } }',
    ]) {
      const body = await (await app().fetch(post({ query }))).json();
      expect(body.errors[0].extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
      expect(body.errors[0].message).toMatch(/first|after/);
    }
  });

  it('masks an unexpected failure as INTERNAL without SQL or stack', async () => {
    const response = await app().fetch(post({ query: '{ categories { id } }' }));
    expect(response.status).toBe(200);
    await app().sql('DROP TABLE "InventoryItem"');
    const broken = await app().fetch(post({ query: '{ inventories { totalCount } }' }));
    const body = await broken.json();
    expect(body.errors[0].extensions).toEqual({ code: 'INTERNAL', status: 500 });
    expect(body.errors[0].message).toBe('Unexpected error; it has been logged.');
    expect(JSON.stringify(body)).not.toMatch(/InventoryItem|SELECT|at \//);
    // Logged once, with the path and the request id the client was given to quote.
    expect(logs.lines.filter((line) => line.msg === 'unexpected error')).toEqual([
      expect.objectContaining({
        level: 50,
        requestId: broken.headers.get('x-request-id'),
        path: ['inventories'],
        err: expect.objectContaining({ message: expect.stringMatching(/InventoryItem/) }),
      }),
    ]);
  });

  it('serves GraphiQL to a browser', async () => {
    const response = await app().fetch(
      new Request('http://petstore.test/graphql', { headers: { accept: 'text/html' } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toMatch(/GraphiQL|Pet Store gateway/);
  });
});

interface Case {
  name: string;
  request: () => Request;
  status: number;
  code: string;
}

const endpoint = 'http://petstore.test/graphql';
const graphqlJson = 'application/graphql-response+json';

function raw(body: string, contentType = 'application/json') {
  return () =>
    new Request(endpoint, {
      method: 'POST',
      headers: { 'content-type': contentType, accept: graphqlJson },
      body,
    });
}

function get(search: string) {
  return () => new Request(`${endpoint}?${search}`, { headers: { accept: graphqlJson } });
}

const malformed = (name: string, body: string): Case => ({
  name,
  request: raw(body),
  status: 400,
  code: 'MALFORMED_REQUEST',
});

/** The errors the GraphQL server raises itself, before any execution. */
const requestErrorCases: Case[] = [
  {
    name: 'a text/plain body',
    request: raw('{"query":"{ __typename }"}', 'text/plain'),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'GET variables that are not JSON',
    request: get('query={__typename}&variables=not-json'),
    status: 400,
    code: 'MALFORMED_REQUEST',
  },
  {
    name: 'GET extensions that are not JSON',
    request: get('query={__typename}&extensions=%7B'),
    status: 400,
    code: 'MALFORMED_REQUEST',
  },
  {
    name: 'a GET without a query',
    request: get('variables=%7B%7D'),
    status: 400,
    code: 'MALFORMED_REQUEST',
  },
  malformed('a body that is not JSON', '{'),
  malformed('a JSON string', '""'),
  malformed('JSON null', 'null'),
  malformed('a JSON number', '42'),
  malformed('an array of numbers', '[1,2]'),
  malformed('an empty object', '{}'),
  malformed('a non-string query', '{"query":5}'),
  malformed('variables that are a string', '{"query":"{ __typename }","variables":"x"}'),
  malformed('extensions that are a string', '{"query":"{ __typename }","extensions":"x"}'),
  malformed('a non-string operationName', '{"query":"{ __typename }","operationName":5}'),
  malformed('a batch holding a non-object', '[{"query":"{ __typename }"}, 5]'),
  malformed('a batch holding an operation without query', '[{"query":"{ __typename }"}, {}]'),
  {
    name: 'a mutation sent by GET',
    request: get(`query=${encodeURIComponent('mutation { deleteCategory(id: "1") }')}`),
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
  },
];

describeDb('GraphQL request errors raised by the server itself', () => {
  const app = useTestApp();

  it.each(requestErrorCases)(
    'answers $name with $status $code',
    async ({ request, status, code }) => {
      const response = await app().fetch(request());
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(
        /^application\/(graphql-response\+)?json/,
      );
      const text = await response.text();
      const body = JSON.parse(text);
      expect(body.data).toBeUndefined();
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].extensions).toEqual({ code, status });
      expect(body.errors[0].message.length).toBeGreaterThan(10);
      expect(body.errors[0].message).not.toMatch(/^Syntax Error/);
      expect(text).not.toMatch(/originalError|stack|at \//);
    },
  );

  it('answers an operation that cannot run 200 under application/json, as GraphQL over HTTP does', async () => {
    const cannotRun = [
      { query: '{ pets { ' },
      { query: '{ pets { edges { node { nickname } } } }' },
      { query: 'query A { __typename }', operationName: 'B' },
      { query: 'query ($id: ID!) { pet(id: $id) { id } }', variables: { id: { an: 'object' } } },
      { query: 'query ($id: ID!) { pet(id: $id) { id } }' },
    ];
    for (const body of cannotRun) {
      const legacy = await app().fetch(post(body, 'application/json'));
      const answer = await legacy.json();
      expect([body, legacy.status, answer.errors[0].extensions.status]).toEqual([body, 200, 400]);
      expect(answer.data).toBeUndefined();
      // The same request asking for GraphQL's own media type gets the 4xx.
      expect((await app().fetch(post(body))).status).toBe(400);
    }
  });

  it('words limit errors as sentences, without the parser prefix', async () => {
    const response = await app().fetch(post({ query: `{ categories { ${'id '.repeat(2100)} } }` }));
    const body = await response.json();
    expect(body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', status: 400 });
    expect(body.errors[0].message).not.toMatch(/Syntax Error/);
  });
});
