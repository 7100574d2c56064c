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
  once(event: 'drain', listener: () => void): unknown;
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
  /** The subscription's own stream, until its member joins its group and lets go of it. */
  let iterator: AsyncIterator<Result> | Iterator<Result> | undefined = isAsyncIterable(result)
    ? result[Symbol.asyncIterator]()
    : [result][Symbol.iterator]();
  let keepAlive: NodeJS.Timeout | undefined;
  let controller: ReadableStreamDefaultController<Uint8Array>;
  let stopped = false;
  let reading = false;
  /** A pump waiting for the client to read (`caughtUp`). */
  let resume: (() => void) | undefined;
  const wake = () => {
    const waiting = resume;
    resume = undefined;
    waiting?.();
  };
  const stop = () => {
    if (stopped) return;
    stopped = true;
    wake();
    clearInterval(keepAlive);
    closed.removeEventListener('abort', stop);
    member?.leave();
    Promise.resolve(iterator?.return?.()).catch(() => {});
  };
  /** The subscription is over: its `complete` message, then the end of the response. */
  const complete = () => {
    write(COMPLETE);
    stopped = true;
    clearInterval(keepAlive);
    closed.removeEventListener('abort', stop);
    member?.leave();
    controller.close();
  };
  /** True once bytes go straight to Node's response: see `pull` below. */
  let direct = false;
  const write = (bytes: Uint8Array) => {
    if (stopped) return;
    if (direct && node) {
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
    interrupted: (why) => {
      if (iterator) return void pump();
      if (stopped) return;
      // A detached member: what its own stream would have said last.
      if (why === 'ended') complete();
      else if (why === 'expired')
        void member?.expiryResult().then((last) => {
          write(message(last));
          if (!stopped) complete();
        }, fail);
      else fail(new Error('the subscription group stopped: resume from the last event id'));
    },
  };
  const fail = (error: unknown) => {
    if (stopped) return;
    stop();
    controller.error(error);
  };
  /**
   * Joined: the group writes this member's events, and the subscription's own stream (Yoga's
   * iterator over it, with the per-request structures it keeps) is let go. What the stream kept
   * besides its reads (its end, the token's expiry, the per-client place) stays with the member
   * (`Member.detach`), and ending Yoga's iterator runs its end hooks now.
   */
  const detach = () => {
    const own = iterator;
    iterator = undefined;
    member?.detach();
    Promise.resolve(own?.return?.()).catch(() => {});
  };
  /**
   * Undefined while the client has read all but half the bound, else resolved once it has read
   * more: a subscription reading its own stream (catching up from a cursor, thousands of events
   * at once) waits for its client instead of outrunning it into the bound, which is for clients
   * that stop reading what a group writes.
   */
  const caughtUp = (): Promise<void> | undefined => {
    const held = direct && node ? node.writableLength : -(controller.desiredSize ?? 0);
    if (held <= bufferBytes / 2) return undefined;
    return new Promise((resolve) => {
      resume = resolve;
      // The stream's `pull` wakes it once its queue is read; Node's response, once drained.
      if (direct && node) node.once('drain', wake);
    });
  };
  /** Reads the subscription's own stream until it ends, or until the member joins its group. */
  const pump = async () => {
    if (reading) return;
    reading = true;
    try {
      while (!stopped && iterator) {
        if (member?.tryJoin(sink)) return detach();
        await caughtUp();
        if (stopped) return;
        const next = await iterator.next();
        if (stopped) return;
        if (next.done) return complete();
        write(message(next.value));
        member?.delivered();
      }
    } catch (error) {
      fail(error);
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
      // Bytes go straight to Node's response, one write per member and event as a bare node:http
      // server does (bench/floor/sse-server.ts), instead of a pass through this stream and its
      // promises, once the server adapter has written everything queued here. `pull` says so: it
      // runs only when the adapter waits in a read on an empty queue, and the adapter (after the
      // head, which sets `headersSent`) reads only after writing what it read before. A chunk
      // handed to a waiting read is written a microtask later, and no pull comes in between: so
      // nothing written directly can overtake it. From then on the adapter's read stays pending
      // until the stream ends, and every byte goes direct: the two paths never interleave.
      pull() {
        if (node?.headersSent) direct = true;
        wake();
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
