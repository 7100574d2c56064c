import type { Context } from 'hono';
import { createSharedReads } from '../db/shared-reads.js';
import { noteErrorCode } from '../http/access-log-fields.js';
import type { AppEnv } from '../http/env.js';
import type { HandlerDeps, Method } from '../rest/kit/route.js';
import {
  fingerprint,
  IDEMPOTENT_REPLAYED,
  type Idempotency,
  parseKey,
  type RecordedResponse,
} from './keys.js';

/** The methods that take an `Idempotency-Key` (the others are idempotent already). */
export const keyedMethods: readonly Method[] = ['post', 'patch'];

/** The headers of a response that a retry gets again. */
const recordedHeaders = ['content-type', 'location', 'etag'];

async function recordOf(
  response: Response,
): Promise<{ copy: Response; recorded: RecordedResponse }> {
  const body = await response.text();
  const headers: Record<string, string> = {};
  for (const name of recordedHeaders) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return {
    copy: new Response(body, response),
    recorded: { status: response.status, headers, body },
  };
}

/** The recorded response, sent again. */
export function replay(recorded: RecordedResponse): Response {
  return new Response(recorded.body === '' ? null : recorded.body, {
    status: recorded.status,
    headers: { ...recorded.headers, [IDEMPOTENT_REPLAYED]: 'true' },
  });
}

/** A REST write's key: whose it is, and how a failure is recorded for it. */
export interface KeyedWrite {
  keys: Idempotency;
  /** The token's subject: a key belongs to it. */
  caller: string;
  /** The response a failure gets, as the key records it (the REST edge's: src/rest/errors.ts). */
  recordError(error: unknown): RecordedResponse;
}

/**
 * Runs a REST write that carries an `Idempotency-Key`, for `caller` (the token's subject): the
 * first request with the key runs whole in one transaction, its response recorded in it; a retry
 * of the same request (method, path and query, body bytes) gets that response again and runs
 * nothing; another request with the key is 422, and a retry while the first runs is 409.
 */
export async function runIdempotent(
  c: Context<AppEnv>,
  { keys, caller, recordError }: KeyedWrite,
  deps: HandlerDeps,
  run: (deps: HandlerDeps) => Promise<Response> | Response,
): Promise<Response> {
  const key = parseKey(c.req.header('idempotency-key') ?? '');
  // Read here, kept by the request for the handler.
  const body = new Uint8Array(await c.req.arrayBuffer());
  const url = new URL(c.req.url);
  const print = fingerprint(c.req.method, `${url.pathname}${url.search}`, body);
  const begun = await keys.begin(caller, key, print);
  if (begun.kind === 'replay') {
    // A replayed refusal is logged with its code, like the first answer.
    if (begun.response.status >= 400) {
      noteErrorCode(c.get('accessLog'), JSON.parse(begun.response.body).code);
    }
    return replay(begun.response);
  }
  try {
    return await begun.request.commit(async (scope) => {
      const domain = { ...deps.domain, ...scope };
      // Every read of the request in its transaction: nothing outside it waits on it.
      const response = await run({ ...deps, domain, shared: createSharedReads(scope.db) });
      const { copy, recorded } = await recordOf(response);
      return { value: copy, response: recorded };
    });
  } catch (error) {
    await begun.request.fail(recordError(error));
    throw error;
  }
}
