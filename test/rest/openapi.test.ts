import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openApiJson } from '../../src/rest/openapi.js';
import { allRoutes } from '../../src/rest/routes/index.js';
import { describeDb, useTestApp } from '../helpers/app.js';
import type { OpenApiDocument } from '../helpers/openapi.js';
import { rest } from '../helpers/rest.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const committed = readFileSync(new URL('../../schema/openapi.json', import.meta.url), 'utf8');

type Operation = {
  operationId: string;
  security?: Record<string, string[]>[];
  'x-required-scope'?: string;
  deprecated?: boolean;
  'x-sunset'?: string;
  'x-stability'?: string;
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  requestBody?: {
    required: boolean;
    description?: string;
    content: Record<string, { schema: unknown }>;
  };
  responses: Record<
    string,
    {
      description: string;
      content?: Record<string, { schema: unknown; examples?: Record<string, { value: unknown }> }>;
      'x-error-codes'?: string[];
    }
  >;
};
type Document = OpenApiDocument & {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

const document = JSON.parse(committed) as Document;
const operations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
  );
const operation = (path: string, method: string) => {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`no ${method} ${path}`);
  return found;
};

it('is committed at schema/openapi.json as the code generates it (npm run openapi:print)', () => {
  expect(committed).toBe(openApiJson(allRoutes, loadConfig({})));
});

it('passes a standard OpenAPI validator', async () => {
  const validated = await SwaggerParser.validate(JSON.parse(committed));
  expect(validated).toMatchObject({ openapi: '3.0.3', info: { version: '1.0.0' } });
});

it('has every route of the REST façade and no other', () => {
  const routes = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  expect(routes.sort()).toEqual(
    [
      'GET /pets',
      'POST /pets',
      'GET /pets/{petId}',
      'PUT /pets/{petId}',
      'DELETE /pets/{petId}',
      'GET /categories',
      'POST /categories',
      'GET /categories/{categoryId}',
      'PUT /categories/{categoryId}',
      'DELETE /categories/{categoryId}',
      'GET /store/orders',
      'POST /store/orders',
      'GET /store/orders/{orderId}',
      'PATCH /store/orders/{orderId}',
      'DELETE /store/orders/{orderId}',
      'GET /store/inventory',
      'GET /store/inventory/{petId}',
      'PUT /store/inventory/{petId}',
      'GET /openapi.json',
    ].sort(),
  );
  expect(document.servers).toEqual([{ url: '/api' }]);
});

it('names its component schemas exactly as the contract does', () => {
  expect(Object.keys(document.components.schemas).sort()).toEqual(
    [
      'PetStatus',
      'NewPet',
      'Pet',
      'Pets',
      'NewCategory',
      'Category',
      'Order',
      'InventoryItem',
      'InventoryUpdate',
      'Error',
    ].sort(),
  );
  expect(document.components.schemas.PetStatus).toEqual({
    type: 'string',
    enum: ['available', 'pending', 'sold'],
    description: 'A pet status, lowercase.',
  });
  expect(document.components.schemas.Error).toMatchObject({
    type: 'object',
    required: ['code', 'message', 'status'],
    additionalProperties: false,
  });
});

it('writes int64 as integer/int64, never as a string', () => {
  const pet = document.components.schemas.Pet as { properties: Record<string, unknown> };
  expect(pet.properties.id).toMatchObject({ type: 'integer', format: 'int64' });
  expect(pet.properties.categoryId).toMatchObject({ type: 'integer', format: 'int64' });
  const petId = operation('/pets/{petId}', 'get').parameters?.find((p) => p.name === 'petId');
  expect(petId).toMatchObject({ in: 'path', schema: { type: 'integer', format: 'int64' } });
});

it('marks the deprecated route and the beta one', () => {
  expect(operation('/pets/{petId}', 'get')).toMatchObject({
    deprecated: true,
    'x-sunset': '2027-06-30T00:00:00Z',
  });
  expect(operation('/store/inventory/{petId}', 'put')['x-stability']).toBe('beta');
  const marked = Object.values(document.paths)
    .flatMap((item) => Object.values(item))
    .filter((op) => op.deprecated || op['x-stability']);
  expect(marked.map((op) => op.operationId).sort()).toEqual(['getPetById', 'updateInventory']);
});

it('documents every error response with the Error schema and the codes it carries', () => {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      expect(op.responses['500']?.['x-error-codes'], `${method} ${path}`).toEqual(['INTERNAL']);
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(
          response.content?.['application/json']?.schema,
          `${method} ${path} ${status}`,
        ).toEqual({
          $ref: '#/components/schemas/Error',
        });
        expect(response['x-error-codes']?.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
      }
      if (op.requestBody) {
        expect(op.requestBody.required).toBe(true);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '413', '415']));
      }
    }
  }
  expect(operation('/store/orders', 'post').responses['409']?.['x-error-codes']).toEqual([
    'IDEMPOTENCY_KEY_IN_FLIGHT',
    'PET_NOT_AVAILABLE',
    'INSUFFICIENT_STOCK',
  ]);
  expect(operation('/pets/{petId}', 'get').responses['410']?.['x-error-codes']).toEqual([
    'ENDPOINT_SUNSET',
  ]);
});

it('shows each error response with an example per code, carrying that code and the real status', () => {
  for (const { name, op } of operations(document)) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (Number(status) < 400) continue;
      const examples = response.content?.['application/json']?.examples ?? {};
      expect(Object.keys(examples), `${name} ${status}`).toEqual(response['x-error-codes']);
      for (const [code, example] of Object.entries(examples)) {
        expect(example.value, `${name} ${status} ${code}`).toEqual({
          code,
          message: expect.stringMatching(/^[A-Z`].+\.$/),
          status: Number(status),
        });
      }
    }
  }
  expect(operation('/pets/{petId}', 'get').responses['404']?.content).toMatchObject({
    'application/json': {
      examples: {
        PET_NOT_FOUND: {
          value: { code: 'PET_NOT_FOUND', message: 'No pet has this id.', status: 404 },
        },
      },
    },
  });
});

it('declares security per operation: the bearer scheme where a scope is needed, none elsewhere', () => {
  const protectedOps = operations(document)
    .filter(({ op }) => op.security?.length)
    .map(({ name }) => name);
  expect(protectedOps.sort()).toEqual(
    [
      'POST /pets',
      'PUT /pets/{petId}',
      'DELETE /pets/{petId}',
      'POST /categories',
      'PUT /categories/{categoryId}',
      'DELETE /categories/{categoryId}',
      'GET /store/orders',
      'POST /store/orders',
      'GET /store/orders/{orderId}',
      'PATCH /store/orders/{orderId}',
      'DELETE /store/orders/{orderId}',
      'PUT /store/inventory/{petId}',
    ].sort(),
  );
  for (const { name, op } of operations(document)) {
    if (op['x-required-scope']) {
      expect(op.security, name).toEqual([{ bearerAuth: [] }]);
      expect(op.responses['403'], name).toBeDefined();
    } else {
      // An empty list: Swagger UI shows no padlock and sends no token.
      expect(op.security, name).toEqual([]);
      expect(op.responses['403'], name).toBeUndefined();
    }
  }
});

it('types every request body property; the ignored ones (id, complete) say so and take anything', () => {
  const bodies = operations(document).flatMap(({ name, op }) => {
    const schema = op.requestBody?.content['application/json']?.schema as
      | { $ref?: string; properties?: Record<string, Record<string, unknown>> }
      | undefined;
    if (!schema) return [];
    const resolved = schema.$ref
      ? (document.components.schemas[schema.$ref.split('/').at(-1) as string] as typeof schema)
      : schema;
    return [{ name, op, properties: resolved.properties ?? {} }];
  });
  expect(bodies.length).toBe(7);
  for (const { name, op, properties } of bodies) {
    expect(Object.keys(properties), name).toContain('id');
    for (const [property, schema] of Object.entries(properties)) {
      const ignored = String(schema.description).startsWith('Accepted and ignored');
      expect(ignored || 'type' in schema || '$ref' in schema, `${name} ${property}`).toBe(true);
      if (ignored) expect(schema.type, `${name} ${property}`).toBeUndefined();
    }
    expect(op.requestBody?.description, name).toContain('`id`');
  }
  expect(operation('/store/orders', 'post').requestBody?.description).toContain(
    '`id` and `complete` may be sent',
  );
});

it('references every component it defines', () => {
  const text = JSON.stringify(document);
  for (const [kind, components] of Object.entries(
    document.components as Record<string, Record<string, unknown>>,
  )) {
    for (const name of Object.keys(components)) {
      // A security scheme is referenced by name in `security`, never by $ref.
      const used =
        kind === 'securitySchemes'
          ? text.includes(`{"${name}":[]}`)
          : text.includes(`"#/components/${kind}/${name}"`);
      expect(used, `${kind}/${name}`).toBe(true);
    }
  }
});

it('describes every operation', () => {
  for (const { name, op } of operations(document)) {
    expect((op as { description?: string }).description, name).toMatch(/\w.*\./);
  }
});

describeDb('the document states what the service enforces', () => {
  const app = useTestApp();
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isInteger(value) });
  ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) });
  const newCategory = ajv.compile({
    ...document.components.schemas.NewCategory,
  });

  const unique = () => `c${Math.random().toString(36).slice(2, 10)}`;
  it.each([
    ['a body sent back with its id', () => ({ id: 12, name: unique() }), 201],
    ['a padded name of 100 characters', () => ({ name: `  ${unique().padEnd(100, 'n')}  ` }), 201],
    ['a name of 101 characters', () => ({ name: unique().padEnd(101, 'n') }), 400],
    ['a name of spaces only', () => ({ name: '   ' }), 400],
    ['an empty name', () => ({ name: '' }), 400],
    ['an unknown property', () => ({ name: unique(), colour: 'red' }), 400],
  ])('%s: the document and the service agree', async (_case, makeBody, status) => {
    const body = makeBody();
    const documented = newCategory(body);
    const response = await rest(app(), 'POST', '/categories', { json: body });
    expect(response.status).toBe(status);
    expect(documented, JSON.stringify(newCategory.errors)).toBe(status === 201);
  });
});

describeDb('the served document under other limits', () => {
  const app = useTestApp({ BODY_LIMIT_BYTES: '2048', REQUEST_TIMEOUT_MS: '1234' });

  it('states the configured body and time limits, not the defaults', async () => {
    const response = await rest(app(), 'GET', '/openapi.json');
    expect(response.text).not.toContain('100 KiB');
    expect(response.text).not.toContain('10000 ms');
    const served = JSON.parse(response.text) as Document & { info: { description: string } };
    expect(served.info.description).toContain('(at most 2 KiB)');
    const post = served.paths['/pets']?.post as Operation;
    expect(post.requestBody?.description).toMatch(/^A JSON object of at most 2 KiB\./);
    expect(post.responses['413']?.description).toBe(
      'Payload too large. `PAYLOAD_TOO_LARGE`: the body is over the limit of 2 KiB.',
    );
    expect(post.responses['503']?.description).toContain('time limit of 1234 ms');
  });
});

describeDb('the served document', () => {
  const app = useTestApp();

  it('is the committed one under the default configuration', async () => {
    const response = await rest(app(), 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.text).toBe(committed);
  });
});
