import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionResult } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import {
  codeOf,
  eventOf,
  events,
  firstEvent,
  liveSecret,
  liveToken,
  restCall,
  restPet,
  sseClient,
  untilOpen,
  wsClient,
} from '../helpers/live.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

/**
 * Every GraphQL policy holds for the same document on every transport: POST, GET and the
 * WebSocket carry the query form of a document, GraphQL over SSE and the WebSocket its
 * subscription form. Real servers, the published clients.
 */

type Transport = 'POST' | 'GET' | 'WebSocket query' | 'SSE' | 'WebSocket';
const transports: Transport[] = ['POST', 'GET', 'WebSocket query', 'SSE', 'WebSocket'];
const carriesQueries = (transport: Transport) =>
  transport === 'POST' || transport === 'GET' || transport === 'WebSocket query';

interface Request {
  query: string;
  extensions?: Record<string, unknown>;
  token?: string | undefined;
}

async function overHttp(server: ServerProcess, method: 'POST' | 'GET', request: Request) {
  const headers: Record<string, string> = { accept: 'application/graphql-response+json' };
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  let url = `${server.url}/graphql`;
  let body: string | undefined;
  if (method === 'GET') {
    const search = new URLSearchParams({ query: request.query });
    if (request.extensions) search.set('extensions', JSON.stringify(request.extensions));
    url += `?${search}`;
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify({ query: request.query, extensions: request.extensions });
  }
  return (await (await fetch(url, { method, headers, body })).json()) as ExecutionResult;
}

/** A query's answer over graphql-ws (its one `next` message), or its refusal. */
async function overSocket(server: ServerProcess, request: Request): Promise<unknown> {
  const client = wsClient(server, request.token);
  try {
    const payload = { query: request.query, extensions: request.extensions ?? {} };
    const answer = events((sink) => client.subscribe(payload, sink));
    const error = await answer.ended;
    return error ?? answer.unread[0];
  } finally {
    await client.dispose();
  }
}

/** A query's answer on a transport that carries queries. */
function overQueryTransport(server: ServerProcess, transport: Transport, request: Request) {
  return transport === 'WebSocket query'
    ? overSocket(server, request)
    : overHttp(server, transport as 'POST' | 'GET', request);
}

/**
 * A subscription's first result, or its refusal. `trigger` is called once the subscription is
 * open (a write that makes an event); a refused subscription ends before that.
 */
async function overStream(
  server: ServerProcess,
  transport: 'SSE' | 'WebSocket',
  request: Request,
  trigger: () => Promise<void>,
): Promise<unknown> {
  const client =
    transport === 'SSE' ? sseClient(server, request.token) : wsClient(server, request.token);
  const payload = { query: request.query, extensions: request.extensions ?? {} };
  const stream = events((sink) => client.subscribe(payload, sink));
  try {
    const opened = await Promise.race([
      untilOpen(server, 1).then(() => true),
      stream.ended.then(() => false),
    ]);
    if (opened) await trigger();
    else if (stream.unread.length === 0) return await stream.ended;
    return await stream.next();
  } finally {
    stream.close();
    await client.dispose();
    await untilOpen(server, 0);
  }
}

describeDb('the GraphQL policies on every transport', () => {
  let server: ServerProcess;
  let token: string;
  let petId: string;

  beforeAll(async () => {
    server = await startServer({
      AUTH_JWT_SECRET: liveSecret,
      SEED: 'false',
      GRAPHQL_MAX_DEPTH: '6',
      GRAPHQL_MAX_ALIASES: '3',
      GRAPHQL_MAX_TOKENS: '200',
      GRAPHQL_MAX_COST: '200',
      GRAPHQL_MAX_LIST_ITEMS: '3',
      RESPONSE_CACHE_TTL_MS: '0',
    });
    token = await liveToken();
    const first = await restPet(server, token, 0);
    petId = first.id;
    // Five pets in one category: more than the list-item cap of 3.
    for (let i = 0; i < 4; i++) {
      await restCall(server, 'POST', '/pets', token, { name: 'Pal', categoryId: first.categoryId });
    }
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A write that makes a petChanged event. */
  const touchPet = async () => {
    const renamed = await restCall(server, 'PUT', `/pets/${petId}`, token, {
      name: `Renamed ${Date.now()}`,
      categoryId: (await restCall(server, 'GET', `/pets/${petId}`, token)).body?.categoryId,
    });
    expect(renamed.status).toBe(200);
  };

  const many = (field: string, count: number) => Array(count).fill(field).join(' ');

  /** Each policy: its query form, its subscription form, the caller, the refusal's code. */
  const policies: {
    policy: string;
    query: string;
    subscription: string;
    anonymous?: boolean;
    code: string;
  }[] = [
    {
      policy: 'depth',
      query: '{ pets { edges { node { category { pets { edges { node { id } } } } } } } }',
      subscription:
        'subscription { petChanged { pet { category { pets { edges { node { id } } } } } } }',
      code: 'QUERY_TOO_COMPLEX',
    },
    {
      policy: 'aliases',
      query:
        '{ a: pets { totalCount } b: pets { totalCount } c: pets { totalCount } d: pets { totalCount } }',
      subscription: 'subscription { petChanged { a: id b: id c: id d: id } }',
      code: 'QUERY_TOO_COMPLEX',
    },
    {
      policy: 'tokens',
      query: `{ pets { ${many('totalCount', 200)} } }`,
      subscription: `subscription { petChanged { ${many('id', 200)} } }`,
      code: 'QUERY_TOO_COMPLEX',
    },
    {
      policy: 'cost',
      query: '{ pets(first: 100) { edges { node { id name } } } }',
      subscription:
        'subscription { petChanged { pet { category { pets(first: 100) { edges { node { id } } } } } } }',
      code: 'QUERY_TOO_COMPLEX',
    },
    {
      policy: 'list-item cap',
      query: '{ pets(first: 10) { edges { node { id } } } }',
      subscription:
        'subscription { petChanged { pet { category { pets(first: 10) { edges { node { id } } } } } } }',
      code: 'QUERY_TOO_COMPLEX',
    },
    {
      policy: 'scopes',
      query: '{ orders { totalCount } }',
      subscription: 'subscription { orderChanged { id } }',
      anonymous: true,
      code: 'UNAUTHENTICATED',
    },
  ];

  const cases = policies.flatMap((policy) =>
    transports.map((transport) => ({ ...policy, transport })),
  );

  it.each(cases)('$policy over $transport', async (policy) => {
    const caller = policy.anonymous ? undefined : token;
    const result = carriesQueries(policy.transport)
      ? await overQueryTransport(server, policy.transport, { query: policy.query, token: caller })
      : await overStream(
          server,
          policy.transport as 'SSE' | 'WebSocket',
          { query: policy.subscription, token: caller },
          touchPet,
        );
    expect(codeOf(result).code, JSON.stringify(result) ?? String(result)).toBe(policy.code);
  });

  it.each(transports)('an allowed document runs over %s', async (transport) => {
    const result = carriesQueries(transport)
      ? await overQueryTransport(server, transport, { query: '{ pets(first: 2) { totalCount } }' })
      : await overStream(
          server,
          transport as 'SSE' | 'WebSocket',
          { query: `subscription { petChanged(id: "${petId}") { id } }` },
          touchPet,
        );
    expect(result).toEqual(
      carriesQueries(transport)
        ? {
            data: { pets: { totalCount: 5 } },
            extensions: { cost: { requestedQueryCost: 2, actualQueryCost: 2 } },
          }
        : // A subscription's events carry no cost report, only their cursor; its first one, its
          // warning.
          firstEvent(eventOf({ petChanged: { id: petId } }), 'petChanged'),
    );
  });
});

describeDb('PERSISTED_OPERATIONS_ONLY on every transport', () => {
  const listedQuery = '{ pets(first: 1) { totalCount } }';
  const listedSubscription = 'subscription { petChanged { id } }';
  const hash = (document: string) => createHash('sha256').update(document).digest('hex');
  const manifest = join(tmpdir(), `petstore-policies-${process.pid}-${Date.now()}.json`);
  let server: ServerProcess;
  let token: string;
  let petId: string;

  beforeAll(async () => {
    writeFileSync(
      manifest,
      JSON.stringify({
        [`sha256:${hash(listedQuery)}`]: listedQuery,
        [`sha256:${hash(listedSubscription)}`]: listedSubscription,
      }),
    );
    server = await startServer({
      AUTH_JWT_SECRET: liveSecret,
      SEED: 'false',
      PERSISTED_OPERATIONS_ONLY: manifest,
    });
    token = await liveToken();
    petId = (await restPet(server, token, 0)).id;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const touchPet = async () => {
    const pet = await restCall(server, 'GET', `/pets/${petId}`, token);
    await restCall(server, 'PUT', `/pets/${petId}`, token, {
      name: `Renamed ${Date.now()}`,
      categoryId: pet.body?.categoryId,
    });
  };

  const run = (transport: Transport, document: string, extensions?: Record<string, unknown>) =>
    carriesQueries(transport)
      ? overQueryTransport(server, transport, { query: document, extensions, token })
      : overStream(
          server,
          transport as 'SSE' | 'WebSocket',
          { query: document, extensions, token },
          touchPet,
        );

  it.each(transports)('refuses a document outside the manifest over %s', async (transport) => {
    const document = carriesQueries(transport)
      ? '{ pets(first: 2) { totalCount } }'
      : 'subscription { inventoryChanged { petId } }';
    expect(codeOf(await run(transport, document)).code).toBe('PERSISTED_QUERY_ONLY');
  });

  it.each(transports)('runs a listed operation over %s', async (transport) => {
    const document = carriesQueries(transport) ? listedQuery : listedSubscription;
    const persistedQuery = { version: 1, sha256Hash: hash(document) };
    const result = await run(transport, document, { persistedQuery });
    expect(codeOf(result).code).toBeUndefined();
    expect((result as ExecutionResult).data).toEqual(
      carriesQueries(transport) ? { pets: { totalCount: 1 } } : { petChanged: { id: petId } },
    );
  });

  it('runs a listed query sent by its hash alone over graphql-ws', async () => {
    const persistedQuery = { version: 1, sha256Hash: hash(listedQuery) };
    // The published client wants a `query` string: an empty one stands for none.
    const result = await run('WebSocket query', '', { persistedQuery });
    expect(result).toEqual({
      data: { pets: { totalCount: 1 } },
      extensions: { cost: { requestedQueryCost: 2, actualQueryCost: 2 } },
    });
  });
});
