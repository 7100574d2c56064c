import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { EventBytes } from './event-bytes.js';
import type { FanOut, Member, MemberSink } from './fan-out.js';
import { type Result, serialize } from './serialize.js';

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

/** Where an event stream's bytes go: Node's response, or a web stream the server reads. */
interface Outlet {
  write(bytes: Uint8Array): void;
  /** Bytes written that the client has not taken yet. */
  held(): number;
  /** Calls `taken` once the client has taken some of what is held. */
  whenTaken(taken: () => void): void;
  end(): void;
  fail(error: Error): void;
  /** Calls `closed` once the client's connection closes. */
  onClosed(closed: () => void): void;
}

/** Node's response, written as a bare node:http server writes (bench/floor/sse-server.ts). */
class NodeOutlet implements Outlet {
  constructor(private readonly response: ServerResponse) {}
  write(bytes: Uint8Array): void {
    this.response.write(bytes);
  }
  held(): number {
    return this.response.writableLength;
  }
  whenTaken(taken: () => void): void {
    this.response.once('drain', taken);
  }
  end(): void {
    this.response.end();
  }
  fail(): void {
    this.response.destroy();
  }
  onClosed(closed: () => void): void {
    this.response.once('close', closed);
  }
}

/**
 * A web stream, for a server that is not Node's (or a caller of the app's `fetch`): Node's own web
 * stream, not the server adapter's ponyfill, whose queue (high-water mark 0) is what the client
 * has not read yet. The event stream begins at the first read.
 */
class WebOutlet implements Outlet {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #taken: (() => void) | undefined;

  constructor(begin: () => void, cancel: () => void) {
    let begun = false;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => {
          if (!begun) {
            begun = true;
            begin();
          }
          const taken = this.#taken;
          this.#taken = undefined;
          taken?.();
        },
        cancel,
      },
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
  }
  write(bytes: Uint8Array): void {
    this.#controller.enqueue(bytes);
  }
  held(): number {
    return -(this.#controller.desiredSize ?? 0);
  }
  whenTaken(taken: () => void): void {
    this.#taken = taken;
  }
  end(): void {
    this.#controller.close();
  }
  fail(error: Error): void {
    this.#controller.error(error);
  }
  /** The server cancels the stream (`cancel`). */
  onClosed(): void {}
}

/** The open event streams, for the keep-alive comment they share. */
const open = new Set<EventStream>();
let keepAlive: NodeJS.Timeout | undefined;
const keepAlives = () => {
  for (const stream of open) stream.keepAlive();
};

/**
 * The event streams answered on Node's server and not begun yet, by Node's response
 * (`handOffEventStream`), with the web stream their answer carries.
 */
const pending = new WeakMap<ServerResponse, { stream: EventStream; body: ReadableStream }>();

/**
 * The GraphQL-over-SSE response (distinct connections mode), as Yoga's own with differences:
 * - every event carries its cursor as the SSE `id:`, so that a client reconnecting with
 *   `Last-Event-ID` (as the browser's EventSource does by itself) resumes where it stopped;
 * - the subscription ends as soon as the client's connection closes (`closed`), not at the next
 *   write, so its place under the per-client bound is free again at once;
 * - a fan-out member (src/live/fan-out.ts) reads its own stream only until it joins its group,
 *   which then writes each event's bytes, the same for every member, into this stream;
 * - on Node's server the bytes go straight into Node's response (`handOffEventStream`), so that a
 *   joined member keeps nothing of its request but its connection;
 * - what the client leaves unread is bounded: past `bufferBytes` held (beyond the socket's own
 *   buffers) the connection is closed, and the client resumes from the last event id it read.
 */
class EventStream implements MemberSink {
  /** The subscription's own stream, until its member joins its group and lets go of it. */
  #iterator: AsyncIterator<Result> | Iterator<Result> | undefined;
  #outlet: Outlet | undefined;
  #stopped = false;
  #reading = false;
  /** A pump waiting for the client to read (`caughtUp`). */
  #resume: (() => void) | undefined;
  readonly #stop = () => this.stop();
  readonly #wake = () => {
    const waiting = this.#resume;
    this.#resume = undefined;
    waiting?.();
  };

  constructor(
    result: Result | AsyncIterable<Result>,
    private readonly closed: AbortSignal,
    private readonly member: Member | undefined,
    private readonly bufferBytes: number,
  ) {
    this.#iterator = isAsyncIterable(result)
      ? result[Symbol.asyncIterator]()
      : [result][Symbol.iterator]();
    closed.addEventListener('abort', this.#stop);
    if (closed.aborted) this.stop();
  }

  /**
   * Starts writing into `outlet`. Its close ends the stream besides the request's signal: the
   * signal of a request the edge rebuilt (src/cache/http.ts) follows the client's only while the
   * rebuilt request lives, which a joined member lets go of.
   */
  begin(outlet: Outlet): void {
    this.#outlet = outlet;
    outlet.onClosed(this.#stop);
    if (this.#stopped) {
      outlet.end();
      return;
    }
    // Some clients see nothing until a first byte is streamed.
    outlet.write(COMMENT);
    open.add(this);
    keepAlive ??= setInterval(keepAlives, KEEP_ALIVE_MS).unref();
    void this.#pump();
  }

  /** A comment line, when the client has read everything. */
  keepAlive(): void {
    if (this.#outlet?.held() === 0) this.#write(COMMENT);
  }

  send(event: EventBytes, first: boolean): void {
    this.#write(event.sse(first));
  }

  interrupted(why: 'ended' | 'expired' | 'failed'): void {
    if (this.#iterator) return void this.#pump();
    if (this.#stopped) return;
    // A detached member: what its own stream would have said last.
    if (why === 'ended') this.#complete();
    else if (why === 'expired')
      void this.member?.expiryResult().then((last) => {
        this.#write(message(last));
        if (!this.#stopped) this.#complete();
      }, this.#fail);
    else this.#fail(new Error('the subscription group stopped: resume from the last event id'));
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#end();
    Promise.resolve(this.#iterator?.return?.()).catch(() => {});
  }

  #end(): void {
    this.#wake();
    open.delete(this);
    if (open.size === 0) {
      clearInterval(keepAlive);
      keepAlive = undefined;
    }
    this.closed.removeEventListener('abort', this.#stop);
    this.member?.leave();
  }

  #write(bytes: Uint8Array): void {
    const outlet = this.#outlet;
    if (this.#stopped || !outlet) return;
    outlet.write(bytes);
    if (outlet.held() > this.bufferBytes) {
      this.stop();
      outlet.fail(new Error('the client left more than SUBSCRIBER_BUFFER_BYTES unread'));
    }
  }

  /** The subscription is over: its `complete` message, then the end of the response. */
  #complete(): void {
    this.#write(COMPLETE);
    if (this.#stopped) return;
    this.#stopped = true;
    this.#end();
    this.#outlet?.end();
  }

  readonly #fail = (error: unknown): void => {
    if (this.#stopped) return;
    this.stop();
    this.#outlet?.fail(error instanceof Error ? error : new Error(String(error)));
  };

  /**
   * Joined: the group writes this member's events, and the subscription's own stream (Yoga's
   * iterator over it, with the request's context it reads with) is let go. What keeps the
   * subscription open stays with the member (`Member.detach`), and ending Yoga's iterator runs
   * its end hooks now.
   */
  #detach(): void {
    const own = this.#iterator;
    this.#iterator = undefined;
    this.member?.detach();
    Promise.resolve(own?.return?.()).catch(() => {});
  }

  /**
   * Undefined while the client has read all but half the bound, else resolved once it has read
   * more: a subscription reading its own stream (catching up from a cursor, thousands of events
   * at once) waits for its client instead of outrunning it into the bound, which is for clients
   * that stop reading what a group writes.
   */
  #caughtUp(): Promise<void> | undefined {
    const outlet = this.#outlet;
    if (!outlet || outlet.held() <= this.bufferBytes / 2) return undefined;
    return new Promise((resolve) => {
      this.#resume = resolve;
      outlet.whenTaken(this.#wake);
    });
  }

  /** Reads the subscription's own stream until it ends, or until the member joins its group. */
  async #pump(): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    try {
      while (!this.#stopped && this.#iterator) {
        if (this.member?.tryJoin(this)) return this.#detach();
        await this.#caughtUp();
        if (this.#stopped || !this.#iterator) return;
        const next = await this.#iterator.next();
        if (this.#stopped) return;
        if (next.done) return this.#complete();
        this.#write(message(next.value));
        this.member?.delivered();
      }
    } catch (error) {
      this.#fail(error);
    } finally {
      this.#reading = false;
    }
  }
}

function eventStreamResponse(
  result: Result | AsyncIterable<Result>,
  fetchAPI: { Response: typeof Response },
  request: Request,
  member: Member | undefined,
  bufferBytes: number,
  node: ServerResponse | undefined,
): Response {
  const stream = new EventStream(result, request.signal, member, bufferBytes);
  const web = new WebOutlet(
    () => stream.begin(web),
    () => stream.stop(),
  );
  if (node) pending.set(node, { stream, body: web.body });
  return new fetchAPI.Response(web.body, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream',
      Connection: 'keep-alive',
      'Cache-Control': 'no-cache',
      'Content-Encoding': 'none',
    },
  });
}

/**
 * The app's answer as the server writes it: an event stream answered on Node's server
 * (@hono/node-server hands the app Node's response as `env.outgoing`) writes into that response
 * itself, its head being the finished answer's (every middleware has set its headers), and the
 * adapter is told it is sent (`RESPONSE_ALREADY_SENT`). The adapter would otherwise read it through
 * a web stream for as long as it is open, and keep the request, its context and the stream's
 * promises as long. Any other answer costs a lookup by Node's response.
 */
export function handOffEventStream(response: Response, env: unknown): Response {
  const outgoing = (env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  const handed = outgoing && pending.get(outgoing);
  if (!handed) return response;
  pending.delete(outgoing);
  // Answered otherwise (by a middleware, or without a body: HEAD): the stream never begins.
  if (response.body !== handed.body) {
    handed.stream.stop();
    return response;
  }
  outgoing.writeHead(response.status, Object.fromEntries(response.headers));
  handed.stream.begin(new NodeOutlet(outgoing));
  return RESPONSE_ALREADY_SENT;
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
 * Answers in `EventStream` wherever Yoga would answer with its own event stream: the client
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
          eventStreamResponse(
            processed as Result | AsyncIterable<Result>,
            fetchAPI,
            request,
            stream ? fanOut.memberOf(serverContext) : undefined,
            bufferBytes,
            (serverContext as { nodeResponse?: ServerResponse }).nodeResponse,
          ),
        'text/event-stream',
      );
    },
  };
}
