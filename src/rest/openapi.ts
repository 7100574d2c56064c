import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Config } from '../config.js';
import { bodyOf, DomainError, type ErrorCode, errorStatus } from '../errors/catalogue.js';
import { deprecationHeaders, instant } from '../warnings/rest.js';
import { conditionalMethods, type HeaderDoc, REST_BASE_PATH, type Route } from './kit/route.js';
import { ErrorBody, ignoredProperties } from './kit/schemas.js';

const errorRef = { $ref: '#/components/schemas/Error' };

/** A byte count as people write it: `100 KiB`, `1500 bytes`. */
export function describeBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/** What each error code means, for the response descriptions and examples. */
const codeMeanings = (config: Config): Partial<Record<ErrorCode, string>> => ({
  VALIDATION_FAILED: 'a path, query or body value is invalid; the message names it',
  MALFORMED_REQUEST: 'the body is not JSON, or not a JSON object',
  PAYLOAD_TOO_LARGE: `the body is over the limit of ${describeBytes(config.limits.bodyBytes)}`,
  UNSUPPORTED_MEDIA_TYPE: 'the body is not sent as application/json',
  PET_NOT_FOUND: 'no pet has this id',
  CATEGORY_NOT_FOUND: 'no category has this id',
  ORDER_NOT_FOUND: 'no order has this id',
  NOT_FOUND: 'no such route',
  METHOD_NOT_ALLOWED: 'the path does not take this method; `Allow` lists those it takes',
  PET_NOT_AVAILABLE: 'the pet is not `available`',
  INSUFFICIENT_STOCK: 'the stock does not cover the quantity',
  ORDER_ALREADY_COMPLETE: 'the order is complete, which is final',
  PET_HAS_ORDERS: 'the pet has orders',
  CATEGORY_IN_USE: 'the category has pets',
  CATEGORY_NAME_TAKEN: 'another category has this name (case-insensitively)',
  ENDPOINT_SUNSET: 'the endpoint is past its sunset',
  UNKNOWN_PET: '`petId` names no existing pet',
  UNKNOWN_CATEGORY: '`categoryId` names no existing category',
  INTERNAL: 'an unexpected error; it has been logged',
  UNAUTHENTICATED: 'the bearer token is missing (where one is needed), invalid or expired',
  FORBIDDEN: 'the token does not grant the scope this operation needs',
  RATE_LIMITED: 'over the per-client rate limit; retry after `Retry-After` seconds',
  TIMEOUT: `the request ran past its time limit of ${config.limits.requestTimeoutMs} ms`,
  UNAVAILABLE: 'the database cannot be reached; try again later',
  PRECONDITION_FAILED:
    'the resource has changed since the version named in `If-Match`, or is at one `If-None-Match` ' +
    'names (`*`: any); `ETag` names its current one',
  IDEMPOTENCY_KEY_REUSED: 'the `Idempotency-Key` was used for a different request',
  IDEMPOTENCY_KEY_IN_FLIGHT:
    'the first request with this `Idempotency-Key` is still running; retry after `Retry-After` seconds',
});

const reasons: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition failed',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable entity',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Unavailable',
};

/**
 * Error codes every operation can answer: an invalid token is refused on any route, the rate
 * limit and the time limit apply everywhere.
 */
const everyOperation: readonly ErrorCode[] = [
  'UNAUTHENTICATED',
  'RATE_LIMITED',
  'INTERNAL',
  'UNAVAILABLE',
  'TIMEOUT',
];

const string = { type: 'string' } as const;
const integer = { type: 'integer', minimum: 0 } as const;

/** Headers of the rate limiter, on every response while it is on (RATE_LIMIT_PER_MINUTE > 0). */
const rateLimitHeaders: Record<string, HeaderDoc> = {
  'RateLimit-Policy': {
    description:
      'The request budget, as the IETF draft "RateLimit header fields for HTTP" writes it: ' +
      '`"requests";q=<requests>;w=60`.',
    schema: string,
  },
  RateLimit: {
    description:
      'What is left of it: `"requests";r=<requests left>;t=<seconds until the window resets>`.',
    schema: string,
  },
  'RateLimit-Limit': { description: 'Requests allowed per client and minute.', schema: integer },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: integer },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: integer },
};

/** The validators of every GET answer (200 and 304). */
const validatorHeaders: Record<string, HeaderDoc> = {
  ETag: {
    description:
      'A strong validator of this body: send it back in `If-None-Match` to get 304 while it is current.',
    schema: string,
    required: true,
  },
  'Cache-Control': {
    description:
      '`no-cache` (a public read: keep it, but revalidate before reuse) without a token; ' +
      '`private, no-store` with one.',
    schema: string,
    required: true,
  },
};

/** `If-None-Match` on a GET: the ETag of a body the caller already holds. */
const ifNoneMatch = z.object({
  'if-none-match': z.string().optional().openapi({
    description: 'The `ETag` of a body already held: 304 with no body while it is current.',
  }),
});

/** `If-Match` on PUT, PATCH and DELETE. */
const ifMatch = z.object({
  'if-match': z
    .string()
    .optional()
    .openapi({
      description:
        'The `ETag` (or several, comma-separated) of the version the change is meant for: the ' +
        'change is made only while the resource is still at that version, else 412 ' +
        '`PRECONDITION_FAILED` with the current `ETag`, and nothing changes. `*` only requires ' +
        'that the resource exists. Checked and written in one atomic step: of several writers ' +
        'holding the same version, exactly one succeeds.',
      // The one value that cannot go stale: a version example would be refused once the
      // resource changes (as Swagger UI's "Execute" sends it). On the parameter too, for the
      // tools that read only that one (Dredd).
      example: '*',
      param: { example: '*' },
    }),
});

/** `If-None-Match` on PUT, PATCH and DELETE (RFC 9110 §13.1.2). */
const ifNoneMatchOnWrite = z.object({
  'if-none-match': z
    .string()
    .optional()
    .openapi({
      description:
        '`*`: change only where the resource does not exist; as no write here creates one, a ' +
        'resource that exists is 412 `PRECONDITION_FAILED` (with its current `ETag`) and nothing ' +
        'changes. A list of `ETag`s: 412 while the resource is at one of those versions.',
      // No example: every value a write could be sent with by Swagger UI's "Execute" is a refusal.
    }),
});

/** `Idempotency-Key` on POST and PATCH. */
const idempotencyKey = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({
      description:
        'A key the caller makes up for this request (1-255 printable ASCII characters, e.g. a ' +
        'UUID), to retry it safely: the first request with the key runs and its response is ' +
        'recorded with its write; a retry of the same request (method, path, body) within ' +
        `the key's lifetime (IDEMPOTENCY_KEY_TTL_HOURS, 24 by default) gets that response again, ` +
        'with `Idempotent-Replayed: true`, and changes nothing. The same key with another request ' +
        'is 422 `IDEMPOTENCY_KEY_REUSED`; while the first still runs, 409 ' +
        "`IDEMPOTENCY_KEY_IN_FLIGHT`. Keys belong to the token's subject: a key without a token " +
        'that has a subject (`sub`) is 400 `VALIDATION_FAILED`. Responses of 500 and ' +
        'above, 401, 403 and 429 are not recorded: their retry runs anew.',
      // No example: one fixed key, sent by Swagger UI's "Execute" with every write, would be
      // refused as reused from the second operation on.
    }),
});

/** On the answers of a POST or PATCH sent with an `Idempotency-Key`. */
const replayedHeader: HeaderDoc = {
  description:
    '`true` when this is the response recorded for the `Idempotency-Key`, sent again: the request ' +
    'ran before. Absent from every other response.',
  schema: string,
};

/** `Retry-After` of 409 `IDEMPOTENCY_KEY_IN_FLIGHT` (other 409s have none). */
const inFlightRetryAfter: HeaderDoc = {
  description: 'With `IDEMPOTENCY_KEY_IN_FLIGHT`: seconds to wait before retrying.',
  schema: integer,
};

/** Headers of particular error statuses. */
const statusHeaders: Record<number, Record<string, HeaderDoc>> = {
  412: {
    ETag: {
      description: "The resource's current version, as `ETag`.",
      schema: string,
      required: true,
    },
  },
  401: {
    'WWW-Authenticate': {
      description: 'The scheme to use: `Bearer`.',
      schema: string,
      required: true,
    },
  },
  429: {
    ...rateLimitHeaders,
    'Retry-After': {
      description: 'Seconds to wait before retrying.',
      schema: integer,
      required: true,
    },
  },
};

/** The bearer scheme: `security` on an operation names it, with the scope in `x-required-scope`. */
export const BEARER = 'bearerAuth';

/** Whether an operation takes `If-Match` and `If-None-Match`: the writes to one resource. */
const takesConditions = (spec: Route['spec']) => conditionalMethods.includes(spec.method);

/** Whether an operation takes `Idempotency-Key`: the writes that are not idempotent already. */
const takesIdempotencyKey = (spec: Route['spec']) =>
  spec.method === 'post' || spec.method === 'patch';

/** The request errors that follow from a declaration: what is parsed, checked or retired. */
function requestErrors(spec: Route['spec']): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (spec.params || spec.query || spec.body) codes.push('VALIDATION_FAILED');
  if (spec.body) codes.push('MALFORMED_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if (spec.deprecation) codes.push('ENDPOINT_SUNSET');
  if (takesConditions(spec)) codes.push('PRECONDITION_FAILED');
  if (takesIdempotencyKey(spec)) codes.push('IDEMPOTENCY_KEY_IN_FLIGHT', 'IDEMPOTENCY_KEY_REUSED');
  return codes;
}

/**
 * An error response for one status: the Error schema, the codes it can carry (`x-error-codes`),
 * and one example per code with its real status, which Swagger UI offers in a list.
 */
function errorResponse(
  codes: readonly ErrorCode[],
  config: Config,
  extraHeaders?: Record<string, HeaderDoc>,
) {
  const status = errorStatus[codes[0] as ErrorCode];
  const codeHeaders = codes.includes('IDEMPOTENCY_KEY_IN_FLIGHT')
    ? { 'Retry-After': inFlightRetryAfter }
    : undefined;
  const headers =
    extraHeaders || statusHeaders[status] || codeHeaders
      ? { ...statusHeaders[status], ...codeHeaders, ...extraHeaders }
      : undefined;
  const meanings = codeMeanings(config);
  const meaning = (code: ErrorCode) => meanings[code] ?? code;
  const examples = Object.fromEntries(
    codes.map((code) => {
      const text = meaning(code);
      const message = `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
      return [code, { summary: code, value: bodyOf(new DomainError(code, message)) }];
    }),
  );
  return {
    description: `${reasons[status] ?? 'Error'}. ${codes.map((code) => `\`${code}\`: ${meaning(code)}.`).join(' ')}`,
    'x-error-codes': [...codes],
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: errorRef, examples } },
  };
}

function errorResponses(
  codes: readonly ErrorCode[],
  config: Config,
  headers?: Record<string, HeaderDoc>,
) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [String(status), errorResponse(list, config, headers)]),
  );
}

function deprecationHeaderDocs(spec: Route['spec'], config: Config): Record<string, HeaderDoc> {
  if (!spec.deprecation) return {};
  const values = deprecationHeaders(spec.deprecation, config);
  return {
    Deprecation: {
      description: `Deprecated since ${instant(spec.deprecation.since)} (RFC 9745): \`${values.deprecation}\`.`,
      schema: { type: 'string' },
      required: true,
    },
    Sunset: {
      description: `The sunset (RFC 8594): \`${values.sunset}\`; 410 \`ENDPOINT_SUNSET\` from then on.`,
      schema: { type: 'string' },
      required: true,
    },
    Link: {
      description: `The successor: \`${values.link}\`.`,
      schema: { type: 'string' },
      required: true,
    },
  };
}

/** The sentence naming the body properties that are accepted and ignored. */
function ignoredText(spec: Route['spec']): string {
  const names = ignoredProperties(spec.body).map((name) => `\`${name}\``);
  if (names.length === 0) return '';
  const list =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `${list} may be sent (e.g. a resource sent back as read) and ${names.length === 1 ? 'is' : 'are'} ignored; any property not listed here is refused.`;
}

/** The one place where a route declaration becomes an OpenAPI operation. */
function operation(spec: Route['spec'], config: Config) {
  const deprecation = deprecationHeaderDocs(spec, config);
  const { success } = spec;
  const read = spec.method === 'get';
  const successHeaders = {
    ...deprecation,
    ...(read ? validatorHeaders : {}),
    // A resource's own ETag (its version) says more than the validators' generic one.
    ...success.headers,
    ...(takesIdempotencyKey(spec) ? { 'Idempotent-Replayed': replayedHeader } : {}),
    ...rateLimitHeaders,
  };
  const responses = {
    [String(success.status)]: {
      description: success.description,
      ...(Object.keys(successHeaders).length > 0 ? { headers: successHeaders } : {}),
      ...(success.schema ? { content: { 'application/json': { schema: success.schema } } } : {}),
    },
    ...(read
      ? {
          '304': {
            description:
              'Not modified: the `If-None-Match` tag is still the current `ETag`. No body.',
            headers: { ...deprecation, ...validatorHeaders, ...rateLimitHeaders },
          },
        }
      : {}),
    ...errorResponses(
      [
        ...requestErrors(spec),
        ...(spec.errors ?? []),
        ...(spec.scope ? (['FORBIDDEN'] as const) : []),
        ...everyOperation,
      ],
      config,
      spec.deprecation ? deprecation : undefined,
    ),
  };
  return {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: spec.description,
    ...(spec.deprecation
      ? { deprecated: true, 'x-sunset': instant(spec.deprecation.sunset(config)) }
      : {}),
    ...(spec.stability ? { 'x-stability': spec.stability } : {}),
    // Public operations need no token (`security: []`, no padlock); a token sent anyway is still
    // checked, hence their 401.
    security: (spec.scope ? [{ [BEARER]: [] }] : []) as Record<string, string[]>[],
    ...(spec.scope ? { 'x-required-scope': spec.scope } : {}),
    request: {
      ...(read ? { headers: ifNoneMatch } : {}),
      ...(takesConditions(spec) || takesIdempotencyKey(spec)
        ? {
            headers: z.object({
              ...(takesConditions(spec) ? { ...ifMatch.shape, ...ifNoneMatchOnWrite.shape } : {}),
              ...(takesIdempotencyKey(spec) ? idempotencyKey.shape : {}),
            }),
          }
        : {}),
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.body
        ? {
            body: {
              required: true,
              description: `A JSON object of at most ${describeBytes(config.limits.bodyBytes)}. ${ignoredText(spec)}`,
              content: { 'application/json': { schema: spec.body } },
            },
          }
        : {}),
    },
    responses,
  };
}

/** Builds the OpenAPI 3.0.3 document from the route declarations (never written by hand). */
export function buildOpenApiDocument(routes: readonly Route[], config: Config) {
  // OpenAPIHono is used here only for its registry and its OpenAPI 3.0 generator.
  const generator = new OpenAPIHono();
  const registry = generator.openAPIRegistry;
  registry.register('Error', ErrorBody);
  registry.registerComponent('securitySchemes', BEARER, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A JWT whose `scope` claim (space-separated) grants `pets:write`, `orders:read`, ' +
      '`orders:write` or `inventory:write`; each operation names the one it needs in ' +
      '`x-required-scope`. Reads of pets, categories and inventory need none. Tokens come from ' +
      "whoever runs the server (`npm run token -- <scopes>` mints one with the server's secret); " +
      'in development the server prints one at start, and this page is already authorized with it.',
  });
  for (const route of routes) registry.registerPath(operation(route.spec, config));

  const document = generator.getOpenAPIDocument({
    openapi: '3.0.3',
    info: {
      title: 'Pet Store REST API',
      version: '1.0.0',
      description:
        'The REST façade of the Pet Store gateway, for legacy callers; new clients should use ' +
        'GraphQL at /graphql. Ids are 64-bit integers written as exact JSON numbers. Every ' +
        'failure is the `Error` object with `status` equal to the HTTP status. Lists are ordered ' +
        'by id and paged with `limit` (1-100, default 20) and `offset`, with the number of ' +
        'matching items in `X-Total-Count`. Request bodies are JSON objects ' +
        `(at most ${describeBytes(config.limits.bodyBytes)}) ` +
        'whose unknown properties are rejected, except `id` (and `complete` when placing an ' +
        'order), which are ignored. Undeclared query parameters are ignored. A path not listed ' +
        'here answers 404 `NOT_FOUND`; a listed path with a method it does not take answers 405 ' +
        '`METHOD_NOT_ALLOWED` with `Allow`; both in the `Error` shape.',
    },
    servers: [{ url: REST_BASE_PATH }],
    tags: [
      { name: 'pets', description: 'Pets.' },
      { name: 'categories', description: 'Categories of pets.' },
      { name: 'store', description: 'Orders and stock.' },
      { name: 'meta', description: 'This document.' },
    ],
  });
  return withoutUntypedNullable(document);
}

/**
 * A body property that takes any value (an ignored one) is written by the generator as
 * `{nullable: true}` without a type, which OpenAPI 3.0 does not allow; `{}` already takes anything.
 */
function withoutUntypedNullable<T>(node: T): T {
  if (typeof node !== 'object' || node === null) return node;
  const record = node as Record<string, unknown>;
  if (record.nullable === true && !('type' in record) && !('$ref' in record))
    delete record.nullable;
  for (const value of Object.values(record)) withoutUntypedNullable(value);
  return node;
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

const documents = new WeakMap<Config, string>();

/** The document of `routes` as JSON text, built once per configuration. */
export function openApiJson(routes: readonly Route[], config: Config): string {
  let json = documents.get(config);
  if (json === undefined) {
    json = `${JSON.stringify(buildOpenApiDocument(routes, config), null, 2)}\n`;
    documents.set(config, json);
  }
  return json;
}
