import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { strongETag } from '../../cache/validators.js';
import { versionOf } from '../../domain/versions.js';
import { JSON_CONTENT_TYPE } from '../../http/content-type.js';
import type { AppEnv } from '../../http/env.js';
import { answerFromParts } from '../../http/response-header.js';
import { stringifyJson } from './json.js';

export { JSON_CONTENT_TYPE };

/**
 * A JSON response; bigints are written as exact JSON numbers. A read's answer carries a strong
 * ETag: the resource's version when the caller names it, else one computed here from the text. A
 * read's answer is made from its parts (`answerFromParts`): the HTTP validators take them as they
 * are, where reading an answer's body and headers back would build a full web `Response`.
 */
export function sendJson(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  const text = stringifyJson(body);
  const read = status === 200 && (c.req.method === 'GET' || c.req.method === 'HEAD');
  const answered: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
  if (read && headers.etag === undefined) answered.etag = strongETag(text);
  for (const name in headers) answered[name] = headers[name] as string;
  return read
    ? answerFromParts(c, text, answered)
    : new Response(text, { status, headers: answered });
}

/**
 * The strong ETag naming a resource's version: the version (GraphQL's `version`) in quotes. Every
 * write bumps it, so the same tag is always the same representation.
 */
export const versionTag = (version: string): string => `"${version}"`;

/** The ETag header of a response holding one resource at its version. */
export const etagOf = (row: { version: number }) => ({ etag: versionTag(versionOf(row)) });

/** 200 with one resource and its version as the ETag. */
export function sendResource(c: Context, body: unknown, row: { version: number }): Response {
  return sendJson(c, 200, body, etagOf(row));
}

/** A page of a list, with the number of matching items in X-Total-Count. */
export function sendPage(c: Context, items: unknown[], total: number): Response {
  return sendJson(c, 200, items, { 'x-total-count': String(total) });
}

/**
 * 201 with the new resource, its path in Location (the collection path plus the id) and its
 * version as the ETag.
 */
export function sendCreated(
  c: Context,
  body: unknown,
  row: { id: bigint; version: number },
): Response {
  return sendJson(c, 201, body, { location: `${c.req.path}/${row.id}`, ...etagOf(row) });
}

export function sendNoContent(c: Context): Response {
  return c.body(null, 204);
}

/*
 * Each resource presents its rows as REST bodies in its rest.ts (src/pets/rest.ts, ...): fields in
 * the documented order, and a field with no value left out (REST JSON never holds null).
 */
