import type { ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 12_000;

type Result = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

/** An error as the contract sends it: nothing of Yoga's own `http` or `unexpected` keys. */
function errorJson(error: GraphQLError) {
  const json = typeof error.toJSON === 'function' ? error.toJSON() : { ...error };
  if (!json.extensions) return json;
  const { http: _http, unexpected: _unexpected, ...extensions } = json.extensions;
  const { extensions: _all, ...rest } = json;
  return Object.keys(extensions).length > 0 ? { ...rest, extensions } : rest;
}

function serialize(result: Result): string {
  if (!result.errors?.length && !result.extensions?.http)
    return (result.stringify ?? JSON.stringify)(result);
  const { http: _http, ...extensions } = result.extensions ?? {};
  return JSON.stringify({
    ...result,
    errors: result.errors?.map(errorJson),
    extensions: Object.keys(extensions).length > 0 ? extensions : undefined,
  });
}

/** Messages of results that several subscribers share (src/live/shared-events.ts). */
const messages = new WeakMap<Result, string>();

/** One SSE message: `id:` when the result is an event with a cursor (src/live/event-cursors.ts). */
function message(result: Result): string {
  let text = messages.get(result);
  if (text === undefined) {
    const cursor = result.extensions?.cursor;
    const id = typeof cursor === 'string' ? `id: ${cursor}\n` : '';
    text = `event: next\n${id}data: ${serialize(result)}\n\n`;
    messages.set(result, text);
  }
  return text;
}

/**
 * The GraphQL-over-SSE response (distinct connections mode), as Yoga's own with two differences:
 * every event carries its cursor as the SSE `id:`, so that a client reconnecting with
 * `Last-Event-ID` (as the browser's EventSource does by itself) resumes where it stopped; and the
 * subscription ends as soon as the client's connection closes (`closed`), not at the next write,
 * so its place under the per-client bound is free again at once.
 */
function eventStream(
  result: Result | AsyncIterable<Result>,
  fetchAPI: { Response: typeof Response; ReadableStream: typeof ReadableStream },
  closed: AbortSignal,
): Response {
  const encoder = new TextEncoder();
  let iterator: AsyncIterator<Result> | Iterator<Result> | undefined;
  let keepAlive: NodeJS.Timeout | undefined;
  const stop = () => {
    clearInterval(keepAlive);
    closed.removeEventListener('abort', stop);
    Promise.resolve(iterator?.return?.()).catch(() => {});
  };
  const body = new fetchAPI.ReadableStream<Uint8Array>({
    start(controller) {
      // Some clients see nothing until a first byte is streamed.
      controller.enqueue(encoder.encode(':\n\n'));
      keepAlive = setInterval(() => {
        if (controller.desiredSize === null) clearInterval(keepAlive);
        else if (controller.desiredSize > 0) controller.enqueue(encoder.encode(':\n\n'));
      }, KEEP_ALIVE_MS);
      keepAlive.unref();
      iterator = isAsyncIterable(result)
        ? result[Symbol.asyncIterator]()
        : [result][Symbol.iterator]();
      closed.addEventListener('abort', stop);
      if (closed.aborted) stop();
    },
    async pull(controller) {
      try {
        const next = await (iterator as AsyncIterator<Result>).next();
        if (!next.done) controller.enqueue(encoder.encode(message(next.value)));
        else {
          controller.enqueue(encoder.encode('event: complete\ndata:\n\n'));
          clearInterval(keepAlive);
          closed.removeEventListener('abort', stop);
          controller.close();
        }
      } catch (error) {
        clearInterval(keepAlive);
        controller.error(error);
      }
    },
    cancel: stop,
  });
  return new fetchAPI.Response(body, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream',
      Connection: 'keep-alive',
      'Cache-Control': 'no-cache',
      'Content-Encoding': 'none',
    },
  });
}

const acceptedTypes = (accept: string | null) =>
  (accept ?? '*/*')
    .toLowerCase()
    .split(',')
    .map((entry) => entry.split(';')[0]?.trim() ?? '');

const mayAcceptEvents = /event-stream|\*/i;

const matches = (accepted: string, type: string) => {
  const [kind, sub] = accepted.split('/');
  const [wantedKind, wantedSub] = type.split('/');
  return (kind === '*' || kind === wantedKind) && (sub === '*' || sub === wantedSub);
};

/**
 * Answers in `eventStream` wherever Yoga would answer with its own event stream: the client
 * accepts `text/event-stream` and, for a single result, no JSON type, which Yoga prefers then.
 * Subscriptions stream, and queries with `@defer` or `@stream` (src/incremental/); Yoga's own
 * writer answers those in `multipart/mixed` when that is asked instead.
 */
export function serverSentEvents(): Plugin {
  return {
    onResultProcess({ request, result, setResultProcessor }) {
      const stream = isAsyncIterable(result);
      // Only a wildcard or the type itself accepts text/event-stream, and without an Accept a
      // single result is JSON: most requests need no parse of the header.
      const accept = request.headers.get('accept');
      if (!stream && (accept === null || !mayAcceptEvents.test(accept))) return;
      const accepted = acceptedTypes(accept);
      if (!accepted.some((type) => matches(type, 'text/event-stream'))) return;
      const json = ['application/graphql-response+json', 'application/json'];
      if (!stream && accepted.some((type) => json.some((wanted) => matches(type, wanted)))) return;
      setResultProcessor(
        (processed, fetchAPI) =>
          eventStream(processed as Result | AsyncIterable<Result>, fetchAPI, request.signal),
        'text/event-stream',
      );
    },
  };
}
