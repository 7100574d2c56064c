import { bodyOf, type ContractError } from './catalogue.js';

/** The content type of every JSON answer, on both edges: with its charset, as RFC 8259 writes it. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** An error answer's parts: its status, headers and body text. */
export interface RenderedError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * A contract error in the Error shape `{code, message, status}`, with `status` the HTTP status and
 * the headers its code carries, then `extra` (an edge's own, such as the ETag of a stale version).
 * Header names are lower-case, as a web `Headers` gives them.
 */
export function restErrorAnswer(
  error: ContractError,
  extra: Readonly<Record<string, string>> = {},
): RenderedError {
  const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
  for (const [name, value] of Object.entries(error.headers)) headers[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value;
  return { status: error.status, headers, body: JSON.stringify(bodyOf(error)) };
}
