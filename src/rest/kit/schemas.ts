import { z } from '@hono/zod-openapi';
import { MAX_STOCK } from '../domain/inventory.js';
import { MAX_ORDER_QUANTITY } from '../domain/orders.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_OFFSET, MAX_PAGE_SIZE } from '../domain/paging.js';
import { petStatuses } from '../domain/pets.js';
import { type ErrorCode, errorStatus } from '../errors/catalogue.js';

/*
 * The REST resources as zod schemas: they type-check request bodies and parameters (shape and JSON
 * types only: ranges, lengths and rules are the domain's) and generate the OpenAPI components.
 * Response schemas are strict, so the document says no other field is ever sent.
 */

/** A JSON integer as the body parser yields it: a number, or a bigint beyond 2^53. */
const jsonInteger = () => z.union([z.number(), z.bigint()], { error: 'must be an integer' });

const int64 = (description: string) =>
  jsonInteger().openapi({ type: 'integer', format: 'int64', minimum: 1, description, example: 1 });

/**
 * A count in a body: handed to the domain as a number (a huge one still fails its range check).
 * `example` is what Swagger UI's "Try it out" sends (without one it sends the maximum).
 */
const count = (min: number, max: number, description: string, example?: number) =>
  jsonInteger().transform(Number).openapi({
    type: 'integer',
    format: 'int32',
    minimum: min,
    maximum: max,
    description,
    example,
  });

const text = () => z.string({ error: 'must be a string' });

const dateTime = (description: string) =>
  text().openapi({ format: 'date-time', description, example: '2026-12-01T10:00:00Z' });

const ignoredSchemas = new WeakSet<z.ZodType>();

/**
 * A body property a caller may send back from a resource it read (`id`, and `complete` when
 * placing an order): accepted with any value and never read. Documented, so that a validating
 * proxy lets such a request through; removed before the body is checked (see route.ts).
 */
const ignored = (why: string) => {
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

const serverAssignsIds = () => ignored('the server assigns ids.');

/** 1-100 characters once the spaces around them are trimmed (the domain's rule, as a pattern). */
const name = (example: string) =>
  text().openapi({
    description: '1-100 characters after trimming the spaces around them; stored trimmed.',
    pattern: '^\\s*\\S([\\s\\S]{0,98}\\S)?\\s*$',
    example,
  });

export const PetStatus = z
  .enum(petStatuses, { error: `must be one of ${petStatuses.join(', ')}` })
  .openapi('PetStatus', { description: 'A pet status, lowercase.' });

export const NewPet = z
  .strictObject({
    id: serverAssignsIds(),
    name: name('Rex'),
    categoryId: int64('An existing category.'),
    status: PetStatus.optional(),
  })
  .openapi('NewPet', {
    description:
      'A pet to create or the full replacement of one. Without `status` a new pet is `available` ' +
      'and a replaced pet keeps its status.',
  });

export const Pet = z
  .strictObject({
    id: int64('The pet id.'),
    name: text(),
    categoryId: int64('The category id.'),
    status: PetStatus,
  })
  .openapi('Pet');

export const Pets = z.array(Pet).openapi('Pets');

export const NewCategory = z
  .strictObject({
    id: serverAssignsIds(),
    // Not one of the sample data's categories: Swagger's "Try it out" succeeds as it is.
    name: name('Hamsters'),
    description: text().optional().openapi({
      maxLength: 500,
      description: 'At most 500 characters.',
      example: 'Small rodents',
    }),
  })
  .openapi('NewCategory', {
    description:
      'A category to create or the full replacement of one (an omitted `description` is ' +
      'cleared). Names are unique case-insensitively.',
  });

export const Category = z
  .strictObject({
    id: int64('The category id.'),
    name: text(),
    description: text().optional(),
  })
  .openapi('Category');

export const NewOrder = z
  .strictObject({
    id: serverAssignsIds(),
    complete: ignored('an order is placed incomplete; complete it with PATCH.'),
    petId: int64('An existing, available pet.'),
    quantity: count(1, MAX_ORDER_QUANTITY, 'Units to take from the stock.', 1),
    shipDate: dateTime('RFC 3339 with an offset.').optional(),
  })
  .openapi({ description: 'An order to place.' });

export const OrderUpdate = z
  .strictObject({
    id: ignored('an order keeps its id.'),
    shipDate: dateTime('RFC 3339 with an offset; `null` clears it.').nullable().optional(),
    complete: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .openapi({ description: '`true` completes the order, which is final.' }),
  })
  .openapi({ description: 'Changes to an order: only the given fields change.' });

export const Order = z
  .strictObject({
    id: int64('The order id.'),
    petId: int64('The ordered pet.'),
    quantity: count(1, MAX_ORDER_QUANTITY, 'Units ordered.'),
    shipDate: dateTime('RFC 3339, UTC.').optional(),
    complete: z.boolean(),
  })
  .openapi('Order');

export const InventoryItem = z
  .strictObject({
    petId: int64('The pet.'),
    quantity: count(0, MAX_STOCK, 'Units in stock.'),
    status: PetStatus,
  })
  .openapi('InventoryItem', { description: "A pet's stock; `status` is the pet's status." });

export const InventoryUpdate = z
  .strictObject({
    id: ignored('the path names the pet.'),
    quantity: count(0, MAX_STOCK, 'The new stock.', 10),
  })
  .openapi('InventoryUpdate', {
    description: 'Stock above 0 makes a sold pet available again; 0 changes no status.',
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
