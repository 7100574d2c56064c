import { z } from '@hono/zod-openapi';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_OFFSET, MAX_PAGE_SIZE } from '../../domain/paging.js';
import { type ErrorCode, errorStatus } from '../../errors/catalogue.js';

/*
 * What the REST resources' zod schemas are made of (each resource's own are in its rest.ts), and
 * the error body every route shares. They type-check request bodies and parameters (shape and JSON
 * types only: ranges, lengths and rules are the domain's) and generate the OpenAPI components.
 * Response schemas are strict, so the document says no other field is ever sent.
 */

/** A JSON integer as the body parser yields it: a number, or a bigint beyond 2^53. */
const jsonInteger = () => z.union([z.number(), z.bigint()], { error: 'must be an integer' });

export const int64 = (description: string) =>
  jsonInteger().openapi({ type: 'integer', format: 'int64', minimum: 1, description, example: 1 });

/**
 * A count in a body: handed to the domain as a number (a huge one still fails its range check).
 * `example` is what Swagger UI's "Try it out" sends (without one it sends the maximum).
 */
export const count = (min: number, max: number, description: string, example?: number) =>
  jsonInteger().transform(Number).openapi({
    type: 'integer',
    format: 'int32',
    minimum: min,
    maximum: max,
    description,
    example,
  });

export const text = () => z.string({ error: 'must be a string' });

export const dateTime = (description: string) =>
  text().openapi({ format: 'date-time', description, example: '2026-12-01T10:00:00Z' });

const ignoredSchemas = new WeakSet<z.ZodType>();

/**
 * A body property a caller may send back from a resource it read (`id`, and `complete` when
 * placing an order): accepted with any value and never read. Documented, so that a validating
 * proxy lets such a request through; removed before the body is checked (see route.ts).
 */
export const ignored = (why: string) => {
  const schema = z
    .unknown()
    .optional()
    .openapi({ description: `Accepted and ignored: ${why}` });
  ignoredSchemas.add(schema);
  return schema;
};

/** The names of a body schema's ignored properties. */
export function ignoredProperties(body: z.ZodType | undefined): string[] {
  if (!(body instanceof z.ZodObject)) return [];
  return Object.entries(body.shape)
    .filter(([, schema]) => ignoredSchemas.has(schema as z.ZodType))
    .map(([property]) => property);
}

export const serverAssignsIds = () => ignored('the server assigns ids.');

/** 1-100 characters once the spaces around them are trimmed (the domain's rule, as a pattern). */
export const name = (example: string) =>
  text().openapi({
    description: '1-100 characters after trimming the spaces around them; stored trimmed.',
    pattern: '^\\s*\\S([\\s\\S]{0,98}\\S)?\\s*$',
    example,
  });

/** Codes only GraphQL can produce; every other contract code can come from a REST route. */
const graphqlOnly = new Set<ErrorCode>([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'QUERY_TOO_COMPLEX',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_ONLY',
]);
const restCodes = (Object.keys(errorStatus) as ErrorCode[]).filter(
  (code) => !graphqlOnly.has(code),
);

export const ErrorBody = z
  .strictObject({
    code: z.enum(restCodes as [ErrorCode, ...ErrorCode[]]),
    message: z.string().openapi({ description: 'What went wrong, naming the offending field.' }),
    status: z
      .number()
      .int()
      .min(400)
      .max(599)
      .openapi({ description: 'The HTTP status of the response.' }),
  })
  .openapi('Error', {
    description: 'Every failure: a stable code, a message and the HTTP status.',
  });

/**
 * A path parameter holding an id: a string here, checked by the domain's parseId. `example` is
 * the id Swagger UI's "Try it out" sends: one that succeeds on the sample data.
 */
export const idParam = (param: string, description: string, example = 1) =>
  z.string().openapi({
    // On the parameter too: tools that read only the parameter's own example (Dredd) find it.
    param: { name: param, in: 'path', example },
    type: 'integer',
    format: 'int64',
    minimum: 1,
    description,
    example,
  });

/** An optional query parameter, read as text and converted (and checked) by the handler. */
export const queryParam = (param: string, schema: Record<string, unknown>, description: string) =>
  z
    .string({ error: 'must be given at most once' })
    .optional()
    .openapi({ param: { name: param, in: 'query' }, ...schema, description });

export const pagingQuery = {
  limit: queryParam(
    'limit',
    { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
    `Page size, 1-${MAX_PAGE_SIZE}.`,
  ),
  offset: queryParam(
    'offset',
    { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_PAGE_OFFSET, default: 0 },
    'Items to skip.',
  ),
};
