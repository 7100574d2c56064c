import type { z } from '@hono/zod-openapi';
import type { SuccessDoc } from '../route.js';

/** Success responses of the usual kinds, with the headers the contract promises. */

export const ok = (schema: z.ZodType, description: string): SuccessDoc => ({
  status: 200,
  description,
  schema,
});

export const page = (schema: z.ZodType, description: string): SuccessDoc => ({
  status: 200,
  description: `${description} Ordered by id.`,
  schema,
  headers: {
    'X-Total-Count': {
      description: 'How many items match, over all pages.',
      schema: { type: 'integer', minimum: 0 },
      required: true,
    },
  },
});

export const created = (schema: z.ZodType, description: string): SuccessDoc => ({
  status: 201,
  description,
  schema,
  headers: {
    Location: {
      description: 'The path of the new resource.',
      schema: { type: 'string' },
      required: true,
    },
  },
});

export const noContent = (description: string): SuccessDoc => ({ status: 204, description });
