import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_BODY_BYTES as MAX_BODY_BYTES } from '../../src/config.js';
import { createTestApp, describeDb, type TestApp, useTestApp } from '../helpers/app.js';
import { makeCategory, makePet } from '../helpers/factories.js';
import { expectError, type RestRequest, rest } from '../helpers/rest.js';

/** A JSON NewPet body of exactly `size` bytes (the name pads it). */
function petBodyOfSize(size: number): string {
  const empty = JSON.stringify({ name: '', categoryId: 1 });
  return JSON.stringify({ name: 'x'.repeat(size - empty.length), categoryId: 1 });
}

const document = JSON.parse(
  readFileSync(new URL('../../schema/openapi.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, { operationId: string; requestBody?: unknown }>> };

function streamOf(text: string, chunk = 8192): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunk));
      offset += chunk;
    },
  });
}

describeDb('the REST HTTP surface', () => {
  const app = useTestApp();

  it.each([
    ['GET', '/'],
    // GET /api is the index of the resources (test/http/pages.test.ts).
    ['POST', ''],
    ['GET', '/nope'],
    ['GET', '/pets/1/orders'],
    ['POST', '/store'],
    ['DELETE', '/pet/1'],
  ])('answers %s /api%s with 404 NOT_FOUND', async (method, path) => {
    expectError(
      await rest(app(), method, path),
      404,
      'NOT_FOUND',
      `No route ${method} /api${path}`,
    );
  });

  it.each([
    ['PATCH', '/pets', 'GET, HEAD, POST'],
    ['DELETE', '/pets', 'GET, HEAD, POST'],
    ['POST', '/pets/1', 'GET, HEAD, PUT, DELETE'],
    ['PATCH', '/pets/abc', 'GET, HEAD, PUT, DELETE'],
    ['OPTIONS', '/pets', 'GET, HEAD, POST'],
    ['DELETE', '/categories', 'GET, HEAD, POST'],
    ['PATCH', '/categories/1', 'GET, HEAD, PUT, DELETE'],
    ['PUT', '/store/orders', 'GET, HEAD, POST'],
    ['PUT', '/store/orders/1', 'GET, HEAD, PATCH, DELETE'],
    ['POST', '/store/inventory', 'GET, HEAD'],
    ['DELETE', '/store/inventory/1', 'GET, HEAD, PUT'],
    ['POST', '/openapi.json', 'GET, HEAD'],
  ])('answers %s /api%s with 405 and Allow: %s', async (method, path, allow) => {
    const response = await rest(app(), method, path);
    expectError(
      response,
      405,
      'METHOD_NOT_ALLOWED',
      `${method} is not allowed on /api${path}; allowed: ${allow}`,
    );
    expect(response.headers.get('allow')).toBe(allow);
  });

  it('answers HEAD like GET, without a body', async () => {
    const category = await makeCategory(app());
    await makePet(app(), { categoryId: category.id });
    const response = await rest(app(), 'HEAD', `/pets?categoryId=${category.id}`);
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
    expect(response.headers.get('x-total-count')).toBe('1');
  });

  it('accepts a body of exactly the limit and refuses one byte more with 413', async () => {
    const atLimit = await rest(app(), 'POST', '/pets', {
      body: petBodyOfSize(MAX_BODY_BYTES),
      contentType: 'application/json',
    });
    expectError(
      atLimit,
      400,
      'VALIDATION_FAILED',
      'name must be 1-100 characters (after trimming spaces)',
    );

    const over = await rest(app(), 'POST', '/pets', {
      body: petBodyOfSize(MAX_BODY_BYTES + 1),
      contentType: 'application/json',
    });
    expectError(
      over,
      413,
      'PAYLOAD_TOO_LARGE',
      'The request body is larger than the limit of 102400 bytes',
    );
  });

  it('refuses a large body by its Content-Length, or while streaming one without it', async () => {
    const declared = await rest(app(), 'PUT', '/categories/1', {
      body: '{"name":"x"}',
      contentType: 'application/json',
      headers: { 'content-length': String(MAX_BODY_BYTES + 1) },
    });
    expectError(declared, 413, 'PAYLOAD_TOO_LARGE');

    const streamed = await rest(app(), 'POST', '/store/orders', {
      body: streamOf(`{"petId":1,"quantity":1,"x":"${'y'.repeat(MAX_BODY_BYTES)}"}`),
      contentType: 'application/json',
    });
    expectError(streamed, 413, 'PAYLOAD_TOO_LARGE');

    const small = await rest(app(), 'POST', '/categories', {
      body: streamOf(`{"name":"Streamed ${Date.now()}"}`, 4),
      contentType: 'application/json',
    });
    expect(small.status).toBe(201);
  });

  it.each([
    ['text/plain', '{"name":"Rex","categoryId":1}'],
    ['application/x-www-form-urlencoded', 'name=Rex&categoryId=1'],
    ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
    ['application/xml', '<pet/>'],
    ['application/jsonx', '{"name":"Rex","categoryId":1}'],
    ['application/json; charset=latin1', '{"name":"Rex","categoryId":1}'],
    ['json', '{"name":"Rex","categoryId":1}'],
  ])('refuses a body sent as %s with 415', async (contentType, body) => {
    expectError(
      await rest(app(), 'POST', '/pets', { body, contentType }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('refuses a body without a Content-Type with 415, and no body at all with 400', async () => {
    expectError(
      // Bytes, not a string: fetch gives a string body a text/plain Content-Type of its own.
      await rest(app(), 'POST', '/categories', {
        body: new TextEncoder().encode('{"name":"NoType"}'),
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'The request body has no Content-Type; send it as application/json',
    );
    expectError(
      await rest(app(), 'POST', '/categories'),
      400,
      'MALFORMED_REQUEST',
      'The request needs a JSON object body (Content-Type: application/json)',
    );
  });

  it.each([
    'application/json; charset=utf-8',
    'application/json;charset="UTF-8"',
    'Application/JSON',
    'application/merge-patch+json',
  ])('accepts a JSON body sent as %s', async (contentType) => {
    const response = await rest(app(), 'POST', '/categories', {
      body: JSON.stringify({ name: `Typed ${contentType} ${Math.random()}` }),
      contentType,
    });
    expect(response.status).toBe(201);
  });

  it.each([
    ['an empty body', '', /^The request body is not valid JSON/],
    ['a cut-off object', '{"name":', /^The request body is not valid JSON/],
    ['trailing text', '{"name":"x"} x', /^The request body is not valid JSON/],
    ['single quotes', "{'name':'x'}", /^The request body is not valid JSON/],
    ['a duplicate key', '{"name":"a","name":"b"}', /^The request body is not valid JSON/],
    [
      'absurd nesting',
      `{"a":${'['.repeat(60_000)}`,
      'The request body is nested too deeply: at most 64 levels of arrays and objects',
    ],
    ['an array', '[{"name":"x"}]', 'The request body must be a JSON object'],
    ['null', 'null', 'The request body must be a JSON object'],
    ['a string', '"name"', 'The request body must be a JSON object'],
    ['a number', '12', 'The request body must be a JSON object'],
  ])('answers %s with 400 MALFORMED_REQUEST', async (_name, body, message) => {
    const response = await rest(app(), 'POST', '/categories', {
      body,
      contentType: 'application/json',
    });
    expectError(response, 400, 'MALFORMED_REQUEST', message);
  });

  it('answers a body that is not UTF-8 with 400 MALFORMED_REQUEST', async () => {
    const body = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    expectError(
      await rest(app(), 'POST', '/categories', { body, contentType: 'application/json' }),
      400,
      'MALFORMED_REQUEST',
      'The request body is not valid UTF-8',
    );
  });

  it('checks the content type before the body, and the body before the path id', async () => {
    expectError(
      await rest(app(), 'PUT', '/pets/abc', { body: 'not json', contentType: 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(
      await rest(app(), 'PUT', '/pets/abc', { body: 'not json', contentType: 'application/json' }),
      400,
      'MALFORMED_REQUEST',
    );
  });
});

/** A request every operation accepts as valid, to reach its handler. */
const validRequests: Record<string, [string, string, RestRequest?]> = {
  listPets: ['GET', '/pets'],
  createPet: ['POST', '/pets', { json: { name: 'Rex', categoryId: 1 } }],
  getPetById: ['GET', '/pets/1'],
  replacePet: ['PUT', '/pets/1', { json: { name: 'Rex', categoryId: 1 } }],
  deletePet: ['DELETE', '/pets/1'],
  listCategories: ['GET', '/categories'],
  createCategory: ['POST', '/categories', { json: { name: 'Dogs' } }],
  getCategory: ['GET', '/categories/1'],
  replaceCategory: ['PUT', '/categories/1', { json: { name: 'Dogs' } }],
  deleteCategory: ['DELETE', '/categories/1'],
  listOrders: ['GET', '/store/orders'],
  placeOrder: ['POST', '/store/orders', { json: { petId: 1, quantity: 1 } }],
  getOrder: ['GET', '/store/orders/1'],
  updateOrder: ['PATCH', '/store/orders/1', { json: { complete: true } }],
  cancelOrder: ['DELETE', '/store/orders/1'],
  listInventory: ['GET', '/store/inventory'],
  getInventoryItem: ['GET', '/store/inventory/1'],
  updateInventory: ['PUT', '/store/inventory/1', { json: { quantity: 1 } }],
};

const operationIds = Object.values(document.paths).flatMap((item) =>
  Object.values(item).map((operation) => operation.operationId),
);
const bodyOperations = Object.values(document.paths).flatMap((item) =>
  Object.values(item)
    .filter((operation) => operation.requestBody)
    .map((operation) => operation.operationId),
);

describeDb('every operation that takes a body', () => {
  const app = useTestApp();

  it.each(bodyOperations)('%s: 400 for bad JSON, 413 over the limit, 415 for text', async (id) => {
    const [method, path] = validRequests[id] ?? [];
    if (!method || !path) throw new Error(`no valid request for ${id}`);
    const json = 'application/json';
    expectError(
      await rest(app(), method, path, { body: '{', contentType: json }),
      400,
      'MALFORMED_REQUEST',
    );
    expectError(
      await rest(app(), method, path, { body: '[]', contentType: json }),
      400,
      'MALFORMED_REQUEST',
    );
    expectError(
      await rest(app(), method, path, {
        body: `{"x":"${'y'.repeat(MAX_BODY_BYTES)}"}`,
        contentType: json,
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expectError(
      await rest(app(), method, path, { body: '{}', contentType: 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(
      await rest(app(), method, path, { json: { unknownProperty: 1 } }),
      400,
      'VALIDATION_FAILED',
      /^Unknown property "unknownProperty"/,
    );
  });
});

describeDb('an unexpected REST failure', () => {
  let app: TestApp | undefined;
  const lines: string[] = [];
  beforeAll(async () => {
    const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
    // A far sunset, so that GET /api/pets/{petId} reaches its handler whatever the date.
    app = await createTestApp({ PET_BY_ID_SUNSET: '2999-12-31T00:00:00Z' }, { logger });
    // Without its tables every handler fails in a way no rule foresees.
    for (const table of ['Order', 'InventoryItem', 'Pet', 'Category']) {
      await app.sql(`DROP TABLE "${table}"`);
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  it('has a valid request for every operation of the document', () => {
    expect(Object.keys(validRequests).sort()).toEqual(
      operationIds.filter((id) => id !== 'getOpenApiDocument').sort(),
    );
  });

  it.each(Object.entries(validRequests))(
    '%s: is 500 INTERNAL with no detail, and logged with the request id',
    async (_id, [method, path, request]) => {
      if (!app) throw new Error('the test app is not ready');
      const before = lines.length;
      const response = await rest(app, method, path, request);
      expect(response.body).toEqual({
        code: 'INTERNAL',
        message: 'Unexpected error; it has been logged.',
        status: 500,
      });
      const logged = lines
        .slice(before)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg !== 'request'); // the access line
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({
        msg: 'unexpected error',
        method,
        path: `/api${path}`,
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        err: expect.objectContaining({ message: expect.any(String) }),
      });
    },
  );

  it('still serves the document, which needs no database', async () => {
    if (!app) throw new Error('the test app is not ready');
    expect((await rest(app, 'GET', '/openapi.json')).status).toBe(200);
  });
});
