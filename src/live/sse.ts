import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { FanOut, Member, MemberSink } from './fan-out.js';
import { type Result, serialize } from './serialize.js';

/**
 * The Node response an SSE answer is streamed into, when the server is Node's (@hono/node-server
 * hands it to the app as `env.outgoing`): a fan-out group writes its bytes into it directly.
 */
export interface NodeResponse {
  readonly headersSent: boolean;
  /** Bytes written and not yet handed to the socket. */
  readonly writableLength: number;
  write(chunk: Uint8Array): boolean;
  destroy(): void;
}

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 12_000;

const encoder = new TextEncoder();
const COMMENT = encoder.encode(':\n\n');
const COMPLETE = encoder.encode('event: complete\ndata:\n\n');

/** One SSE message: `id:` when the result is an event with a cursor (src/live/event-cursors.ts). */
function message(result: Result): Uint8Array {
  const cursor = result.extensions?.cursor;
  const id = typeof cursor === 'string' ? `id: ${cursor}\n` : '';
  return encoder.encode(`event: next\n${id}data: ${serialize(result)}\n\n`);
}

/**
 * The GraphQL-over-SSE response (distinct connections mode), as Yoga's own with differences:
 * - every event carries its cursor as the SSE `id:`, so that a client reconnecting with
 *   `Last-Event-ID` (as the browser's EventSource does by itself) resumes where it stopped;
 * - the subscription ends as soon as the client's connection closes (`closed`), not at the next
 *   write, so its place under the per-client bound is free again at once;
 * - a fan-out member (src/live/fan-out.ts) reads its own stream only until it joins its group,
 *   which then writes each event's bytes, the same for every member, into this stream;
 * - what the client leaves unread is bounded: past `bufferBytes` queued here (beyond the
 *   socket's own buffers) the stream fails, the connection is closed, and the client resumes
 *   from the last event id it read.
 */
function eventStream(
  result: Result | AsyncIterable<Result>,
  fetchAPI: { Response: typeof Response },
  closed: AbortSignal,
  member: Member | undefined,
  bufferBytes: number,
  node: NodeResponse | undefined,
): Response {
  const iterator: AsyncIterator<Result> | Iterator<Result> = isAsyncIterable(result)
    ? result[Symbol.asyncIterator]()
    : [result][Symbol.iterator]();
  let keepAlive: NodeJS.Timeout | undefined;
  let controller: ReadableStreamDefaultController<Uint8Array>;
  let stopped = false;
  let reading = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(keepAlive);
    closed.removeEventListener('abort', stop);
    member?.leave();
    Promise.resolve(iterator.return?.()).catch(() => {});
  };
  const write = (bytes: Uint8Array) => {
    if (stopped) return;
    // Once the server adapter has written the head and taken everything queued, bytes go straight
    // to Node's response: one write per member and event, as a bare node:http server does
    // (bench/floor/sse-server.ts), instead of a pass through a web stream and its promises. Until
    // then they queue, in order, behind what is queued.
    if (node?.headersSent && controller.desiredSize === 0) {
      node.write(bytes);
      if (node.writableLength > bufferBytes) {
        stop();
        node.destroy();
      }
      return;
    }
    controller.enqueue(bytes);
    // The queue's high-water mark is 0: what it holds is what the client has not read yet.
    if ((controller.desiredSize ?? 0) < -bufferBytes) {
      stop();
      controller.error(new Error('the client left more than SUBSCRIBER_BUFFER_BYTES unread'));
    }
  };
  const sink: MemberSink = {
    send: (event, first) => write(event.sse(first)),
    interrupted: () => void pump(),
  };
  /** Reads the subscription's own stream until it ends, or until the member joins its group. */
  const pump = async () => {
    if (reading) return;
    reading = true;
    try {
      while (!stopped && !member?.tryJoin(sink)) {
        const next = await iterator.next();
        if (stopped) return;
        if (next.done) {
          write(COMPLETE);
          stopped = true;
          clearInterval(keepAlive);
          closed.removeEventListener('abort', stop);
          controller.close();
          return;
        }
        write(message(next.value));
        member?.delivered();
      }
    } catch (error) {
      if (stopped) return;
      stop();
      controller.error(error);
    } finally {
      reading = false;
    }
  };
  // Node's own web stream, not the server adapter's ponyfill (which drains what is enqueued into a
  // Node stream of its own at once): its queue is what the client has not read yet.
  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        // Some clients see nothing until a first byte is streamed.
        controller.enqueue(COMMENT);
        keepAlive = setInterval(() => {
          if (stopped) clearInterval(keepAlive);
          else if ((controller.desiredSize ?? 0) >= 0) write(COMMENT);
        }, KEEP_ALIVE_MS);
        keepAlive.unref();
        closed.addEventListener('abort', stop);
        if (closed.aborted) stop();
        else void pump();
      },
      cancel: stop,
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
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
export function serverSentEvents(fanOut: FanOut, bufferBytes: number): Plugin {
  return {
    onResultProcess({ request, result, setResultProcessor, serverContext }) {
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
          eventStream(
            processed as Result | AsyncIterable<Result>,
            fetchAPI,
            request.signal,
            stream ? fanOut.memberOf(serverContext) : undefined,
            bufferBytes,
            (serverContext as { nodeResponse?: NodeResponse }).nodeResponse,
          ),
        'text/event-stream',
      );
    },
  };
}
