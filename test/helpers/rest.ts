import { isInteger, parse, stringify } from 'lossless-json';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { authorizationHeader, type Client } from './client.js';
import { type OpenApiDocument, ResponseValidator } from './openapi.js';

export const API = 'http://petstore.test/api';

export interface RestRequest {
  /** A value to send as JSON (bigints are written as exact numbers). */
  json?: unknown;
  /** A raw body (text, bytes or a stream without Content-Length), sent as it is. */
  body?: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
  /** Content-Type; `application/json` by default when `json` is given. */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RestResponse<Body = unknown> {
  status: number;
  headers: Headers;
  text: string;
  /** The body read exactly: integers beyond 2^53 as bigints; undefined when empty. */
  body: Body;
}

/** JSON with integers beyond 2^53 as bigints, so tests can compare ids digit for digit. */
export function readJson(text: string): unknown {
  return parse(text, null, (value) => {
    if (!isInteger(value)) return Number.parseFloat(value);
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : BigInt(value);
  });
}

const validators = new WeakMap<object, Promise<ResponseValidator>>();

/** The validator for an app, built from the document that app serves. */
export function validatorFor(app: Pick<App, 'fetch'>): Promise<ResponseValidator> {
  let validator = validators.get(app.fetch);
  if (!validator) {
    validator = (async () => {
      const url = `${API}/openapi.json`;
      const response = await app.fetch(new Request(url));
      const text = await response.text();
      const document = JSON.parse(text) as OpenApiDocument;
      const created = await ResponseValidator.create(document);
      created.check({
        method: 'GET',
        url,
        status: response.status,
        headers: response.headers,
        text,
      });
      return created;
    })();
    validators.set(app.fetch, validator);
  }
  return validator;
}

/**
 * Sends one request to the REST façade through the app's fetch handler, and checks the response
 * against the OpenAPI document the app serves before returning it.
 */
export async function rest<Body = unknown>(
  app: Client,
  method: string,
  path: string,
  request: RestRequest = {},
): Promise<RestResponse<Body>> {
  const headers: Record<string, string> = { ...authorizationHeader(app), ...request.headers };
  let body = request.body;
  if (request.json !== undefined) body = stringify(request.json);
  const contentType =
    request.contentType ?? (request.json !== undefined ? 'application/json' : undefined);
  if (contentType !== undefined) headers['content-type'] = contentType;
  const url = `${API}${path}`;
  // A stream body needs `duplex: 'half'`, which the DOM typings do not know yet.
  const init = { method, headers, body, duplex: 'half' } as RequestInit;
  const response = await app.fetch(new Request(url, init));
  const text = await response.text();
  (await validatorFor(app)).check({
    method,
    url,
    status: response.status,
    headers: response.headers,
    text,
  });
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: (text === '' ? undefined : readJson(text)) as Body,
  };
}

/** Asserts an Error-shaped response with this status and code, and the message when given. */
export function expectError(
  response: RestResponse,
  status: number,
  code: string,
  message?: string | RegExp,
): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: {
      code,
      message:
        message === undefined
          ? expect.any(String)
          : typeof message === 'string'
            ? message
            : expect.stringMatching(message),
      status,
    },
  });
}
