import fc from 'fast-check';
import { stringify } from 'lossless-json';
import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { type RestRequest, rest } from '../helpers/rest.js';

/**
 * Property: however a request is malformed, the façade answers 4xx in the Error shape (and, through
 * the rest() helper, as the OpenAPI document says), never 5xx. The database is empty, so even a
 * request that got past validation could only meet a 404 or 422.
 */

interface Malformed {
  kind: string;
  method: string;
  path: string;
  request: RestRequest;
}

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Each path template with its methods and, for the methods that take one, a valid body. */
const paths: { template: string; methods: Record<string, Record<string, unknown> | null> }[] = [
  { template: '/pets', methods: { GET: null, POST: { name: 'Rex', categoryId: 1 } } },
  {
    template: '/pets/{id}',
    methods: { GET: null, PUT: { name: 'Rex', categoryId: 1 }, DELETE: null },
  },
  { template: '/categories', methods: { GET: null, POST: { name: 'Dogs' } } },
  { template: '/categories/{id}', methods: { GET: null, PUT: { name: 'Dogs' }, DELETE: null } },
  { template: '/store/orders', methods: { GET: null, POST: { petId: 1, quantity: 1 } } },
  {
    template: '/store/orders/{id}',
    methods: { GET: null, PATCH: { complete: true }, DELETE: null },
  },
  { template: '/store/inventory', methods: { GET: null } },
  { template: '/store/inventory/{id}', methods: { GET: null, PUT: { quantity: 1 } } },
  { template: '/openapi.json', methods: { GET: null } },
];

const withBody = paths.flatMap(({ template, methods: byMethod }) =>
  Object.entries(byMethod)
    .filter(([, body]) => body !== null)
    .map(([method, body]) => ({ method, path: template.replace('{id}', '1'), body: body ?? {} })),
);

/** What a field holding `valid` must not be: other JSON types, and values out of its range. */
function wrongValue(valid: unknown): fc.Arbitrary<unknown> {
  const others = [
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
  ];
  if (typeof valid === 'string')
    return fc.oneof(
      ...others,
      fc.boolean(),
      fc.integer(),
      fc.constantFrom('', '   ', 'x'.repeat(101)),
    );
  if (typeof valid === 'number')
    return fc.oneof(
      ...others,
      fc.boolean(),
      fc.string({ maxLength: 5 }),
      fc.constantFrom(-1, 1.5, -9007199254740993n, 9223372036854775808n, 10n ** 30n),
    );
  return fc.oneof(...others, fc.integer(), fc.string({ maxLength: 5 }));
}

const hugeNumberText = fc.constantFrom(
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '9223372036854775808',
  '-9223372036854775809',
  '1.7976931348623157e309',
  '0.0000000000000000000000001',
);

const badId = fc.oneof(
  fc.constantFrom('0', '-1', '-0', '+1', '1.5', '1e3', '0x10', 'abc', '9223372036854775808', ' 7'),
  fc.bigInt({ min: 2n ** 63n, max: 2n ** 80n }).map(String),
  fc.integer({ max: 0 }).map(String),
  fc.string({ minLength: 1, maxLength: 8 }).filter((text) => !/^[0-9]{1,19}$/.test(text)),
);

const badQuery: Record<string, fc.Arbitrary<[string, string]>> = {
  '/pets': fc.oneof(
    fc.tuple(fc.constant('limit'), fc.constantFrom('0', '101', '-5', 'ten', '', '2.5', '1e2')),
    fc.tuple(fc.constant('offset'), fc.constantFrom('-1', 'x', '1.5', '')),
    fc.tuple(
      fc.constant('status'),
      fc.string({ maxLength: 6 }).filter((s) => !['available', 'pending', 'sold'].includes(s)),
    ),
    fc.tuple(fc.constant('categoryId'), badId),
  ),
  '/store/orders': fc.oneof(
    fc.tuple(
      fc.constant('complete'),
      fc.string({ maxLength: 6 }).filter((s) => s !== 'true' && s !== 'false'),
    ),
    fc.tuple(fc.constant('petId'), badId),
    fc.tuple(fc.constant('limit'), fc.constantFrom('0', '1000', '99999999999999999999')),
  ),
  '/store/inventory': fc.tuple(
    fc.constantFrom('limit', 'offset'),
    fc.constantFrom('-1', 'a', '1e400'),
  ),
};

const json = (value: unknown): RestRequest => ({
  body: stringify(value) ?? '',
  contentType: 'application/json',
});

const malformed: fc.Arbitrary<Malformed> = fc.oneof(
  // Text that is not JSON, sent as JSON.
  fc
    .record({
      target: fc.constantFrom(...withBody),
      text: fc.oneof(
        fc.string({ maxLength: 20 }).map((text) => `{${text}`),
        fc
          .json()
          .map((text) => text.slice(0, Math.max(0, text.length - 1)))
          .filter((text) => !isObjectJson(text)),
        fc.constantFrom('', ' ', '{"a":1,}', "{'a':1}", '{"a":01}', '{"a":NaN}', '{"a"}', '\u0000'),
      ),
    })
    .map(({ target, text }) => ({
      kind: 'bad JSON',
      method: target.method,
      path: target.path,
      request: { body: text, contentType: 'application/json' },
    })),
  // JSON that is not an object.
  fc
    .record({
      target: fc.constantFrom(...withBody),
      value: fc
        .jsonValue()
        .filter((value) => typeof value !== 'object' || value === null || Array.isArray(value)),
    })
    .map(({ target, value }) => ({
      kind: 'not an object',
      method: target.method,
      path: target.path,
      request: json(value),
    })),
  // A valid body with one field of a wrong type or out of range.
  fc.record({ target: fc.constantFrom(...withBody), pick: fc.nat() }).chain(({ target, pick }) => {
    const fields = Object.keys(target.body);
    const field = fields[pick % fields.length] as string;
    return wrongValue(target.body[field]).map((value) => ({
      kind: 'wrong type',
      method: target.method,
      path: target.path,
      request: json({ ...target.body, [field]: value }),
    }));
  }),
  // A valid body with a huge number written into it.
  fc
    .record({
      target: fc.constantFrom(
        ...withBody.filter((t) => Object.values(t.body).some((v) => typeof v === 'number')),
      ),
      number: hugeNumberText,
    })
    .map(({ target, number }) => {
      const field = Object.entries(target.body).find(
        ([, value]) => typeof value === 'number',
      )?.[0] as string;
      const body =
        stringify({ ...target.body, [field]: 0 })?.replace(
          `"${field}":0`,
          `"${field}":${number}`,
        ) ?? '';
      return {
        kind: 'huge number',
        method: target.method,
        path: target.path,
        request: { body, contentType: 'application/json' },
      };
    }),
  // A valid body with an unknown property.
  fc
    .record({
      target: fc.constantFrom(...withBody),
      key: fc
        .string({ minLength: 1, maxLength: 10 })
        .filter(
          (key) =>
            ![
              'id',
              'name',
              'categoryId',
              'status',
              'description',
              'petId',
              'quantity',
              'shipDate',
              'complete',
            ].includes(key),
        ),
      value: fc.jsonValue({ maxDepth: 1 }),
    })
    .map(({ target, key, value }) => ({
      kind: 'unknown field',
      method: target.method,
      path: target.path,
      request: json({ ...target.body, [key]: value }),
    })),
  // A valid body with a content type other than JSON.
  fc
    .record({
      target: fc.constantFrom(...withBody),
      contentType: fc.constantFrom(
        'text/plain',
        'text/json',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=b',
        'application/octet-stream',
        'application/json-seq',
        'application/json; charset=utf-16',
      ),
    })
    .map(({ target, contentType }) => ({
      kind: 'content type',
      method: target.method,
      path: target.path,
      request: { body: stringify(target.body) ?? '', contentType },
    })),
  // A bad id in the path, on every method the path takes.
  fc
    .record({
      target: fc.constantFrom(...paths.filter((p) => p.template.includes('{id}'))),
      // Encoded ids, and raw segments whose percent-encoding is itself broken.
      segment: fc.oneof(
        badId.map(encodeURIComponent),
        fc.constantFrom('%E0%A4%A', '%ZZ', '%', '1%00', '%2F', '%2e%2e'),
      ),
      pick: fc.nat(),
    })
    .map(({ target, segment, pick }) => {
      const entries = Object.entries(target.methods);
      const [method, body] = entries[pick % entries.length] as [
        string,
        Record<string, unknown> | null,
      ];
      return {
        kind: 'bad id',
        method,
        path: target.template.replace('{id}', segment),
        request: body ? json(body) : {},
      };
    }),
  // A bad query parameter on a list.
  fc.constantFrom(...Object.keys(badQuery)).chain((path) =>
    (badQuery[path] as fc.Arbitrary<[string, string]>).map(([name, value]) => ({
      kind: 'bad query',
      method: 'GET',
      path: `${path}?${new URLSearchParams({ [name]: value })}`,
      request: {},
    })),
  ),
  // A method the path does not take.
  fc
    .record({
      target: fc.constantFrom(...paths),
      method: fc.constantFrom(...methods),
      id: fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }),
    })
    .filter(({ target, method }) => !(method in target.methods))
    .map(({ target, method, id }) => ({
      kind: 'wrong method',
      method,
      path: target.template.replace('{id}', String(id)),
      request: {},
    })),
);

function isObjectJson(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

describeDb('malformed REST requests (property)', () => {
  const app = useTestApp();

  it('get 4xx Error-shaped answers, never 5xx, for at least 500 generated requests', async () => {
    const kinds = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(malformed, async ({ kind, method, path, request }) => {
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        const response = await rest(app(), method, path, request);
        expect(response.status, `${kind}: ${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${kind}: ${method} ${path}`).toBeLessThan(500);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(response.body).toEqual({
          code: expect.stringMatching(/^[A-Z][A-Z_]+$/),
          message: expect.any(String),
          status: response.status,
        });
      }),
      { numRuns: 600 },
    );
    const sent = [...kinds.values()].reduce((sum, count) => sum + count, 0);
    expect(sent).toBeGreaterThanOrEqual(600);
    expect([...kinds.keys()].sort()).toEqual(
      [
        'bad JSON',
        'bad id',
        'bad query',
        'content type',
        'huge number',
        'not an object',
        'unknown field',
        'wrong method',
        'wrong type',
      ].sort(),
    );
  });
});
