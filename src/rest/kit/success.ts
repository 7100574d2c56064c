import type { z } from '@hono/zod-openapi';
import type { HeaderDoc, SuccessDoc } from './route.js';

/** The ETag of a response holding one resource. */
export const versionETag: HeaderDoc = {
  description:
    "A strong validator naming the resource's version (GraphQL's `version` in quotes), which " +
    'every change of the resource changes: send it in `If-Match` to change the resource only ' +
    'while it is still this version, or in `If-None-Match` to get 304 while it is.',
  schema: { type: 'string' },
  required: true,
};

/** Success responses of the usual kinds, with the headers the contract promises. */

export const ok = (schema: z.ZodType, description: string): SuccessDoc => ({
  status: 200,
  description,
  schema,
});

/** 200 with one resource, whose version is the strong ETag. */
export const one = (schema: z.ZodType, description: string): SuccessDoc => ({
  status: 200,
  description,
  schema,
  headers: { ETag: versionETag },
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
    ETag: versionETag,
  },
});

export const noContent = (description: string): SuccessDoc => ({ status: 204, description });
