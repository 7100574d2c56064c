import type { Context } from 'hono';
import { slot } from './slot.js';

/**
 * Answers whose parts stay plain: a string body and a plain object of lower-case headers. Under
 * `@hono/node-server` such a `Response` is its lightweight one, which the adapter writes as it is;
 * reading its `headers` or its body would build a web `Headers` and a full `Response`. Code that
 * completes an answer (the HTTP validators, the response cache) reads the parts here instead, and
 * falls back to the `Response` for any other answer.
 */
export interface PlainParts {
  readonly status: number;
  readonly body: string | null;
  /** Lower-case names. Never changed: a new answer gets a new object. */
  readonly headers: Readonly<Record<string, string>>;
}

const partsOf = slot<Response, PlainParts>('plain parts');

export function plainAnswer(parts: PlainParts): Response {
  const headers = parts.headers as Record<string, string>;
  const response = new Response(parts.body, { status: parts.status, headers });
  partsOf.set(response, parts);
  return response;
}

/** The parts of an answer made by `plainAnswer`; undefined for any other. */
export const plainParts = (response: Response): PlainParts | undefined => partsOf.get(response);

/** A header of an answer (lower-case name), read without building a web `Headers` when it can. */
export function headerOf(response: Response, name: string): string | undefined {
  const parts = plainParts(response);
  return parts ? parts.headers[name] : (response.headers.get(name) ?? undefined);
}

/** Replaces a request's answer whole (Hono would otherwise copy the old one's headers into it). */
export function replaceResponse(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}
