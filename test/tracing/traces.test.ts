import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { database, databaseAvailable } from '../helpers/app.js';
import {
  codeOf,
  events,
  liveSecret,
  liveToken,
  restPet,
  upgradeRequest,
  wsUrl,
} from '../helpers/live.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp.js';
import { projectRoot } from '../helpers/process.js';
import { type ServerProcess, startServer } from '../helpers/server.js';

/** A caller's span, as its `traceparent` names it: a fresh trace for each test. */
function callerSpan() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The span `span` descends from (its parent, its parent's parent, …) within `spans`. */
function ancestors(span: ReceivedSpan, spans: readonly ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  const found: ReceivedSpan[] = [];
  for (let at = byId.get(span.parentSpanId ?? ''); at; at = byId.get(at.parentSpanId ?? '')) {
    found.push(at);
  }
  return found;
}

const inTrace = (traceId: string) => (spans: ReceivedSpan[]) =>
  spans.filter((span) => span.traceId === traceId);

/** What the servers under test export to: the receiver, as JSON, without waiting. */
const tracingEnv = (receiver: OtlpReceiver, service: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_SERVICE_NAME: service,
  OTEL_BSP_SCHEDULE_DELAY: '50',
  SEED: 'false',
  AUTH_JWT_SECRET: liveSecret,
});

describe.runIf(databaseAvailable)('traces exported over OTLP/HTTP', () => {
  let receiver: OtlpReceiver;
  let server: ServerProcess;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = await startServer(tracingEnv(receiver, 'petstore-test'));
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("continues the caller's trace through the server, the GraphQL operation and its SQL", async () => {
    const token = await liveToken();
    const { id } = await restPet(server, token, 0);
    const caller = callerSpan();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: caller.traceparent },
      body: JSON.stringify({
        query: `query PetById { pet(id: "${id}") { name category { name } } }`,
      }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).data.pet.name).toBe('Comet');
    const traceresponse = response.headers.get('traceresponse') ?? '';
    expect(traceresponse).toMatch(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));

    const spans = inTrace(caller.traceId)(
      await receiver.waitFor((all) =>
        inTrace(caller.traceId)(all).some((span) => span.name === 'query PetById'),
      ),
    );
    const server_ = spans.find((span) => span.kind === 2);
    expect(server_).toMatchObject({
      name: 'POST /graphql',
      parentSpanId: caller.spanId,
      attributes: { 'http.route': '/graphql', 'http.response.status_code': 200 },
      resource: { 'service.name': 'petstore-test' },
    });
    // The response names the server span.
    expect(traceresponse.split('-')[2]).toBe(server_?.spanId);

    const operation = spans.find((span) => span.name === 'query PetById');
    expect(operation).toMatchObject({
      parentSpanId: server_?.spanId,
      attributes: {
        'graphql.operation.name': 'PetById',
        'graphql.operation.type': 'query',
        'graphql.operation.cost': expect.any(Number),
      },
    });
    const phases = spans.filter((span) => span.parentSpanId === operation?.spanId);
    expect(phases.map((span) => span.name).sort()).toEqual([
      'graphql.execute',
      'graphql.parse',
      'graphql.validate',
    ]);
    // Never one span per resolver.
    expect(spans.filter((span) => /^(Query|Pet|Category)\./.test(span.name))).toEqual([]);

    const statements = spans.filter((span) => span.name === 'prisma:client:db_query');
    expect(statements.length).toBeGreaterThanOrEqual(1);
    for (const statement of statements) {
      expect(statement.kind).toBe(3);
      expect(statement.attributes['db.system.name']).toBe(database);
      const text = String(statement.attributes['db.query.text']);
      expect(text).toMatch(/^SELECT /);
      // The statement's text, never its values (the id is a parameter: `?` or `$1`).
      expect(text).not.toMatch(new RegExp(`(?<![$\\w])${id}(?!\\w)`));
      expect(ancestors(statement, spans)).toContain(operation);
      expect(ancestors(statement, spans).at(-1)).toBe(server_);
    }

    // The access line names the trace beside the request id.
    const line = await server.waitForLog(
      (entry) => entry.msg === 'request' && entry.trace_id === caller.traceId,
    );
    expect(line).toMatchObject({ requestId: expect.any(String), path: '/graphql', status: 200 });
  });

  it('names the client a request names in its headers on the server span', async () => {
    const caller = callerSpan();
    const response = await fetch(`${server.url}/api/categories`, {
      headers: {
        traceparent: caller.traceparent,
        'graphql-client-name': 'shop-web',
        'graphql-client-version': '4.1.0',
      },
    });
    expect(response.status).toBe(200);
    const spans = inTrace(caller.traceId)(
      await receiver.waitFor((all) => inTrace(caller.traceId)(all).some((span) => span.kind === 2)),
    );
    expect(spans.find((span) => span.kind === 2)).toMatchObject({
      name: 'GET /api/categories',
      attributes: { 'petstore.client.name': 'shop-web', 'petstore.client.version': '4.1.0' },
    });
  });

  it('records a REST failure with its contract code on the route and server spans', async () => {
    const caller = callerSpan();
    const response = await fetch(`${server.url}/api/pets/987654321`, {
      headers: { traceparent: caller.traceparent },
    });
    expect(response.status).toBe(404);
    const spans = inTrace(caller.traceId)(
      await receiver.waitFor((all) =>
        inTrace(caller.traceId)(all).some((span) => span.name === 'GET /api/pets/:petId'),
      ),
    );
    const route = spans.find((span) => span.name === 'REST getPetById');
    const server_ = spans.find((span) => span.kind === 2);
    for (const span of [route, server_]) {
      expect(span).toMatchObject({
        attributes: { 'error.type': 'PET_NOT_FOUND' },
        status: { code: 2 },
      });
    }
    expect(route?.parentSpanId).toBe(server_?.spanId);
    expect(server_?.attributes['http.route']).toBe('/api/pets/:petId');
  });

  it('puts a write in a domain span under its REST route span, and records a GraphQL failure', async () => {
    const token = await liveToken();
    const caller = callerSpan();
    const created = await fetch(`${server.url}/api/categories`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        traceparent: caller.traceparent,
      },
      body: JSON.stringify({ name: `Traced ${randomBytes(4).toString('hex')}` }),
    });
    expect(created.status).toBe(201);
    const refused = callerSpan();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: refused.traceparent },
      body: JSON.stringify({ query: 'mutation Nameless { deleteCategory(id: "1") }' }),
    });
    expect(response.status).toBe(200);
    const spans = await receiver.waitFor(
      (all) =>
        inTrace(caller.traceId)(all).some((span) => span.name === 'domain createCategory') &&
        inTrace(refused.traceId)(all).some((span) => span.name === 'mutation Nameless'),
    );
    const domain = inTrace(caller.traceId)(spans).find(
      (span) => span.name === 'domain createCategory',
    );
    const route = inTrace(caller.traceId)(spans).find(
      (span) => span.name === 'REST createCategory',
    );
    expect(domain?.parentSpanId).toBe(route?.spanId);
    const insert = inTrace(caller.traceId)(spans).find((span) =>
      String(span.attributes['db.query.text']).startsWith('INSERT'),
    );
    expect(insert && ancestors(insert, spans)).toContain(domain);

    const mutation = inTrace(refused.traceId)(spans).find(
      (span) => span.name === 'mutation Nameless',
    );
    expect(mutation).toMatchObject({
      attributes: { 'error.type': 'UNAUTHENTICATED' },
      status: { code: 2 },
    });
  });

  it("traces each raw statement the app sends: an order's, a key's claim and record", async () => {
    const token = await liveToken();
    const pet = await restPet(server, token);
    const order = async (headers: Record<string, string>) => {
      const caller = callerSpan();
      const placed = await fetch(`${server.url}/api/store/orders`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          traceparent: caller.traceparent,
          ...headers,
        },
        body: JSON.stringify({ petId: Number(pet.id), quantity: 1 }),
      });
      expect(placed.status).toBe(201);
      return caller.traceId;
    };
    const plain = await order({});
    const keyed = await order({ 'idempotency-key': randomBytes(8).toString('hex') });
    const statement = (traceId: string, text: RegExp) => (spans: ReceivedSpan[]) =>
      inTrace(traceId)(spans).find(
        (span) =>
          span.name === 'prisma:client:db_query' &&
          text.test(String(span.attributes['db.query.text'])),
      );
    const insertOrder = /INSERT INTO "Order"/;
    const claim = /INSERT INTO "IdempotencyKey"/;
    const record = /UPDATE "IdempotencyKey"/;
    const spans = await receiver.waitFor(
      (all) =>
        !!statement(plain, insertOrder)(all) &&
        !!statement(keyed, record)(all) &&
        // The server's span ends last: every span of the request is in by then.
        inTrace(keyed)(all).some((span) => span.kind === 2),
    );
    const domain = inTrace(plain)(spans).find((span) => span.name === 'domain placeOrder');
    for (const span of [statement(plain, insertOrder)(spans), statement(keyed, claim)(spans)]) {
      expect(span?.kind).toBe(3);
      expect(span?.attributes['db.system.name']).toBe(database);
      // The statement's text, its values as parameters.
      expect(String(span?.attributes['db.query.text'])).toMatch(
        database === 'sqlite' ? /\?/ : /\$1\b/,
      );
    }
    const inserted = statement(plain, insertOrder)(spans);
    expect(inserted && ancestors(inserted, spans)).toContain(domain);
    // With a key, the order's statements and the key's record are in one transaction, run once.
    const transactions = inTrace(keyed)(spans).filter(
      (span) => span.name === 'prisma:client:transaction',
    );
    expect(transactions).toHaveLength(1);
    for (const text of [insertOrder, record]) {
      const span = statement(keyed, text)(spans);
      expect(span && ancestors(span, spans)).toContain(transactions[0]);
    }
  });

  it('records nothing of a request its caller did not sample, and still names its trace', async () => {
    const token = await liveToken();
    const unsampled = callerSpan();
    const traceparent = unsampled.traceparent.replace(/-01$/, '-00');
    const response = await fetch(`${server.url}/api/categories`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        traceparent,
      },
      body: JSON.stringify({ name: `Unsampled ${randomBytes(4).toString('hex')}` }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('traceresponse')).toMatch(
      new RegExp(`^00-${unsampled.traceId}-[0-9a-f]{16}-00$`),
    );
    // A sampled request after it: by the time its spans arrive, any of the first would have too.
    const sampled = callerSpan();
    await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ categories { id } }')}`, {
      headers: { traceparent: sampled.traceparent },
    });
    await receiver.waitFor((all) => inTrace(sampled.traceId)(all).some((span) => span.kind === 2));
    expect(inTrace(unsampled.traceId)(receiver.spans)).toEqual([]);
  });

  it('records the code of an operation refused before it was parsed', async () => {
    const caller = callerSpan();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: caller.traceparent },
      body: JSON.stringify({
        extensions: { persistedQuery: { version: 1, sha256Hash: 'ab'.repeat(32) } },
      }),
    });
    expect(codeOf(await response.json()).code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const spans = inTrace(caller.traceId)(
      await receiver.waitFor((all) =>
        inTrace(caller.traceId)(all).some((span) => span.name === 'GraphQL operation'),
      ),
    );
    const server_ = spans.find((span) => span.kind === 2);
    expect(spans.find((span) => span.name === 'GraphQL operation')).toMatchObject({
      parentSpanId: server_?.spanId,
      attributes: { 'error.type': 'PERSISTED_QUERY_NOT_FOUND', 'petstore.error.status': 400 },
      status: { code: 2 },
    });
  });

  it("traces a WebSocket's upgrade as a server span, and each operation sent over it", async () => {
    const caller = callerSpan();
    // A browser cannot set headers on an upgrade, but a proxy in front of the gateway can.
    class TracedWebSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { traceparent: caller.traceparent } });
      }
    }
    const client = createWsClient({
      url: wsUrl(server),
      webSocketImpl: TracedWebSocket,
      connectionParams: { authorization: `Bearer ${await liveToken()}` },
      retryAttempts: 0,
    });
    // Refused (the WebSocket carries no mutation): its span still ends, with the code.
    const refused = events((sink) =>
      client.subscribe({ query: 'mutation OverSocket { deleteCategory(id: "0") }' }, sink),
    );
    expect(codeOf(await refused.ended)).toEqual({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    await client.dispose();
    const nowhere = callerSpan();
    const missing = await upgradeRequest(server, '/nowhere', {
      headers: { traceparent: nowhere.traceparent },
    });
    expect(missing.status).toBe(404);

    const spans = await receiver.waitFor(
      (all) =>
        inTrace(caller.traceId)(all).length > 0 &&
        inTrace(nowhere.traceId)(all).length > 0 &&
        all.some((span) => span.name === 'mutation OverSocket'),
    );
    expect(inTrace(caller.traceId)(spans)).toEqual([
      expect.objectContaining({
        name: 'GET /graphql',
        kind: 2,
        parentSpanId: caller.spanId,
        attributes: expect.objectContaining({
          'http.route': '/graphql',
          'http.response.status_code': 101,
        }),
      }),
    ]);
    expect(spans.find((span) => span.name === 'mutation OverSocket')).toMatchObject({
      attributes: { 'error.type': 'METHOD_NOT_ALLOWED', 'graphql.operation.type': 'mutation' },
      status: { code: 2 },
    });
    expect(inTrace(nowhere.traceId)(spans)).toEqual([
      expect.objectContaining({
        name: 'GET',
        kind: 2,
        parentSpanId: nowhere.spanId,
        attributes: expect.objectContaining({
          'error.type': 'NOT_FOUND',
          'http.response.status_code': 404,
          'url.path': '/nowhere',
        }),
      }),
    ]);
  });
});

describe.runIf(databaseAvailable)('without an OTLP endpoint', () => {
  let receiver: OtlpReceiver;
  let server: ServerProcess;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // Everything but the endpoint: the SDK would read these if it were loaded.
    server = await startServer({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'petstore-untraced',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      SEED: 'false',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it('makes no span: no trace header, no trace id in the logs', async () => {
    const caller = callerSpan();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: caller.traceparent },
      body: JSON.stringify({ query: '{ categories { id } }' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('traceresponse')).toBeNull();
    const line = await server.waitForLog((entry) => entry.msg === 'request');
    expect(line).not.toHaveProperty('trace_id');
    expect(server.logs.filter((entry) => 'trace_id' in entry)).toEqual([]);
    // Nowhere to send to, and nothing sent to the default endpoint either (it is not this one).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests).toBe(0);
  });
});

describe('what tracing loads when it is off', () => {
  const src = join(projectRoot, 'src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.startsWith('generated'))
    .map((file) => join(src, file));

  it('loads OpenTelemetry only in src/tracing/sdk.ts, which only server.ts imports, dynamically', () => {
    const runtimeImports = (text: string) =>
      [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)].map((match) => match[1]);
    const loading = files.filter((file) =>
      runtimeImports(readFileSync(file, 'utf8')).some((name) =>
        /^@opentelemetry\/|^@prisma\/instrumentation$/.test(name ?? ''),
      ),
    );
    expect(loading.map((file) => relative(src, file))).toEqual([]);
    const importers = files.filter((file) => readFileSync(file, 'utf8').includes('tracing/sdk.js'));
    expect(importers.map((file) => relative(src, file))).toEqual(['server.ts']);
    expect(readFileSync(join(src, 'server.ts'), 'utf8')).toMatch(
      /await import\('\.\/tracing\/sdk\.js'\)/,
    );
  });
});
