import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ExecutionResult, type GraphQLError, parse } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { GraphQLParams } from 'graphql-yoga';
import { type WebSocket, WebSocketServer } from 'ws';
import { type TokenVerifier, viewerOf } from '../auth/tokens.js';
import { anonymous, type Viewer } from '../domain/context.js';
import {
  DomainError,
  type ErrorHeaders,
  methodNotAllowed,
  rateLimited,
} from '../errors/catalogue.js';
import { rawErrorAnswer } from '../errors/socket.js';
import { peerAddress } from '../http/client-address.js';
import { ClientCounts } from '../http/client-counts.js';
import type { Deadline } from '../http/deadline.js';
import type { AccessLogFields, ClientName, CostAccount } from '../http/env.js';
import { type Streamed, socketFormat } from '../incremental/format.js';
import type { Limited } from '../limits/time-limit.js';
import type { Logger } from '../logger.js';
import type { ClientNames } from '../observability/client-name.js';
import { clientKey, type RateLimits } from '../rate-limit/middleware.js';
import { type Handshake, traceHandshake } from '../tracing/http.js';
import type { FanOut, Member, MemberSink } from './fan-out.js';

/** The path WebSocket clients connect to: the same as GraphQL over HTTP. */
export const WEBSOCKET_PATH = '/graphql';

export type GraphQLResult = ExecutionResult | AsyncIterable<ExecutionResult>;

/** What an operation sent over a WebSocket hands the GraphQL pipeline (its `ServerContext`). */
interface SocketOperation {
  requestId: string;
  viewer: Viewer;
  client: string;
  clientName?: ClientName;
  transport: 'websocket';
  costAccount: CostAccount | undefined;
  accessLog: AccessLogFields;
  /** Its time limit, as an HTTP request's (src/limits/time-limit.ts). */
  deadline: Deadline;
  /** The format of its parts, if it is a query with `@defer` or `@stream`. */
  streamed: Streamed;
  /** Set by the edge when a query executes (a mutation is refused). */
  executes?: 'query';
}

/**
 * What the transport needs of the GraphQL edge (`GraphQLEdge`, src/graphql/yoga.ts, which plugs
 * in the rest of src/live/ and so sits above it): its pipeline, which each `subscribe` runs
 * through, and its errors as it sends them.
 */
export interface GraphQLPipeline {
  run(params: GraphQLParams, context: SocketOperation): Promise<GraphQLResult>;
  errorOf(error: unknown): GraphQLError;
  /** The fan-out that writes a subscription's events once it has joined its group. */
  readonly fanOut: Pick<FanOut, 'memberOf'>;
}

export interface WebSocketOptions {
  graphql: GraphQLPipeline;
  verify: TokenVerifier;
  /** The largest message accepted, in bytes (the body limit of HTTP requests). */
  maxPayload: number;
  logger: Logger;
  /** The budgets every request counts against: an upgrade and each `subscribe` are requests. */
  limits: RateLimits;
  /** WebSockets one client may hold open (MAX_SOCKETS_PER_CLIENT). */
  socketsPerClient: number;
  /** The client a connection names: in its upgrade request's headers, else in `connection_init`. */
  clientNames: ClientNames;
  /** What a connection may leave unread before it is closed (SUBSCRIBER_BUFFER_BYTES). */
  bufferBytes: number;
  /** The time limit of every operation (REQUEST_TIMEOUT_MS): `operationTimeLimit`. */
  timeLimit: <T>(work: (deadline: Deadline) => Promise<T>) => Promise<Limited<T>>;
}

export interface WebSocketTransport {
  /** Closes every connection with 1001 (their subscriptions end) and stops accepting new ones. */
  close(): Promise<void>;
}

/** An operation on a connection (a subscription or a query), as its log lines describe it. */
interface Logged {
  kind: 'subscription' | 'query';
  requestId: string;
  fields: AccessLogFields;
  started: number;
  events: number;
}

/** What a connection learned from its `connection_init` (the caller), and its subscriptions. */
type Connection = {
  viewer?: Viewer;
  client?: string;
  clientName?: ClientName;
  logged?: Map<string, Logged>;
};

/** Close code of a refused `connection_init` (graphql-ws's Forbidden), with the reason why. */
const REFUSED = 4403;

/** Close code of a connection over its client's bound (graphql-ws's "too many" code: not retried). */
const TOO_MANY = 4429;

/**
 * A persisted operation may be sent by its hash alone, but graphql-ws refuses a `subscribe` whose
 * payload has no `query` string: one with a persisted query's hash gets an empty one, which the
 * persisted operations treat as none (src/persisted/operations.ts).
 */
function hashOnlyPayloads(key: string, value: unknown): unknown {
  if (
    key === 'payload' &&
    value !== null &&
    typeof value === 'object' &&
    !('query' in value) &&
    'extensions' in value
  )
    return { ...value, query: '' };
  return value;
}

/**
 * graphql-ws runs an operation whose arguments name a subscription through `subscribe`; the
 * operation has already run through Yoga, so this constant document only says which.
 */
const ALREADY_SUBSCRIBED = parse('subscription { __typename }');

/** How long a connection has to send its `connection_init` (graphql-ws then closes it with 4408). */
const CONNECTION_INIT_WAIT_MS = 3000;

/**
 * How long a client has to answer a close the server started before its socket is destroyed. ws
 * waits 30 s for the answer, and a client that never sends one would hold its socket that long.
 */
const CLOSE_GRACE_MS = 1000;

/** The longest a timer may wait (setTimeout's limit); a later expiry is checked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A connection is authorised for as long as its token is valid: once it expires the socket is
 * closed with 4403, which ends its subscriptions (their streams deliver nothing after the expiry).
 */
function closeAtExpiry(socket: WebSocket, expiresAt: number): void {
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const left = expiresAt - Date.now();
    if (left > 0) timer = setTimeout(check, Math.min(left, MAX_TIMER_MS));
    else socket.close(REFUSED, 'The bearer token has expired');
  };
  check();
  socket.once('close', () => clearTimeout(timer));
}

/** An error as the contract sends it: code and status in `extensions`, nothing of Yoga's `http`. */
function contractJson(error: GraphQLError) {
  const json = error.toJSON();
  if (!json.extensions) return json;
  const { http: _http, ...extensions } = json.extensions;
  return { ...json, extensions };
}

const addressOf = (request: IncomingMessage) => peerAddress(request.socket);

const isStream = (result: GraphQLResult): result is AsyncIterable<ExecutionResult> =>
  Symbol.asyncIterator in result;

/** Lets go of what an operation brought after its time limit had answered for it (a stream). */
function letGo(late: Promise<GraphQLResult>): void {
  late.then(
    (result) => {
      if (isStream(result)) void result[Symbol.asyncIterator]().return?.();
    },
    () => {},
  );
}

/** A refused upgrade: the contract's error, and headers of the handshake's own. */
interface Refusal {
  error: DomainError;
  headers?: ErrorHeaders;
}

/**
 * Why ws refused a handshake (its messages: a method other than GET, a missing or bad
 * `Sec-WebSocket-Key`, `-Version`, `-Protocol` or `-Extensions` header), as the contract's error.
 */
function handshakeRefusal(reason: string): Refusal {
  if (reason === 'Invalid HTTP method') {
    return { error: methodNotAllowed('A WebSocket upgrade is a GET request', 'GET') };
  }
  const error = new DomainError('MALFORMED_REQUEST', `Not a valid WebSocket upgrade: ${reason}`);
  // RFC 6455: a server refusing the client's version says which one it speaks.
  return reason.includes('Version')
    ? { error, headers: { 'Sec-WebSocket-Version': '13' } }
    : { error };
}

/** Answers an upgrade this server does not take with the Error shape, and closes the socket. */
function refuseUpgrade(socket: Duplex, handshake: Handshake, { error, headers }: Refusal): void {
  if (socket.writable) socket.end(rawErrorAnswer(error, headers));
  else socket.destroy();
  handshake.refused(error);
}

/**
 * What graphql-ws iterates for a fan-out member (src/live/fan-out.ts): the subscription's own
 * stream until the member joins its group; from then on the group writes each event's `next`
 * frame on the socket itself (graphql-ws's own messages, `complete` included, still go through
 * graphql-ws). Joined, the member lets go of its own stream (Yoga's iterator, the request's context
 * and what they keep: `Member.detach`), and this waits until it leaves its group: its subscription
 * ended (`complete`), or its group stopped (an error, which closes the socket; the client resumes
 * with `after`). The token's expiry closes the socket itself (4403). A socket that leaves more than
 * `bufferBytes` unsent is cut: its client resumes with `after` set to the last cursor it read.
 */
function memberChannel(
  stream: AsyncIterable<ExecutionResult>,
  member: Member,
  where: { socket: WebSocket; id: string; bufferBytes: number; logged: Logged; logger: Logger },
): AsyncIterableIterator<ExecutionResult> {
  const { socket, id, bufferBytes, logged } = where;
  let events: AsyncIterator<ExecutionResult> | undefined = stream[Symbol.asyncIterator]();
  let wake: (() => void) | undefined;
  let ended = false;
  let failed = false;
  const stopWaiting = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const sink: MemberSink = {
    send(event, first) {
      if (socket.readyState !== socket.OPEN) return;
      logged.events++;
      socket.send(event.frame(id, first));
      if (socket.bufferedAmount > bufferBytes) {
        where.logger.info(
          {
            requestId: logged.requestId,
            transport: 'websocket',
            unsentBytes: socket.bufferedAmount,
          },
          'subscriber closed: more than SUBSCRIBER_BUFFER_BYTES unread',
        );
        socket.terminate();
      }
    },
    interrupted(why) {
      failed = why === 'failed';
      stopWaiting();
    },
  };
  /** Lets go of the member's own stream, running Yoga's end hooks now. */
  const release = async () => {
    const own = events;
    events = undefined;
    await own?.return?.();
  };
  const done = { done: true, value: undefined } as const;
  const channel: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      if (!ended && events && member.tryJoin(sink)) {
        member.detach();
        void release().catch(() => {});
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      if (ended) return done;
      if (!events) {
        if (failed)
          throw new DomainError(
            'UNAVAILABLE',
            'The subscription stopped: subscribe again with `after` set to the last cursor read',
          );
        return done;
      }
      const next = await events.next();
      if (!next.done) member.delivered();
      return next;
    },
    async return() {
      ended = true;
      member.leave();
      stopWaiting();
      await release();
      return done;
    },
    async throw(error) {
      ended = true;
      member.leave();
      stopWaiting();
      await release();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return channel;
    },
  };
  return channel;
}

/**
 * GraphQL subscriptions and queries over WebSocket (the `graphql-transport-ws` protocol of
 * graphql-ws) on `server`'s /graphql. The token comes in the `connection_init` payload (an invalid
 * one closes the connection with 4403 and the reason); each `subscribe` runs through the GraphQL
 * edge's own pipeline (`GraphQLEdge.run`) under the time limit, so it meets every policy an HTTP
 * request meets. A query's answer is one `next` message, or one per part with `@defer`/`@stream`
 * (the format: `socketFormat`), then `complete`; a mutation is refused (src/graphql/yoga.ts).
 */
export function serveWebSockets(server: Server, options: WebSocketOptions): WebSocketTransport {
  const { graphql, verify, logger, limits, clientNames } = options;
  const socketsOf = new ClientCounts(options.socketsPerClient);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload });
  let closing = false;

  // ws reports a handshake it refuses here (else it would answer in plain text itself).
  const handshakes = new WeakMap<IncomingMessage, Handshake>();
  sockets.on('wsClientError', (error: Error, socket: Duplex, request: IncomingMessage) =>
    refuseUpgrade(
      socket,
      handshakes.get(request) ?? traceHandshake(request, WEBSOCKET_PATH),
      handshakeRefusal(error.message),
    ),
  );

  server.on('upgrade', async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    const handshake = traceHandshake(request, pathname === WEBSOCKET_PATH ? pathname : undefined);
    if (pathname !== WEBSOCKET_PATH) {
      const error = new DomainError('NOT_FOUND', `No WebSocket endpoint at ${pathname}`);
      return refuseUpgrade(socket, handshake, { error });
    }
    if (closing) {
      const error = new DomainError('UNAVAILABLE', 'The server is shutting down');
      return refuseUpgrade(socket, handshake, { error });
    }
    // The upgrade is a request of its address (the token comes later, in connection_init).
    const window = await limits.requests?.count(clientKey(anonymous, addressOf(request)));
    if (window?.refused) {
      return refuseUpgrade(socket, handshake, { error: rateLimited(window.resetSeconds) });
    }
    handshakes.set(request, handshake);
    sockets.handleUpgrade(request, socket, head, (ws) => {
      handshake.accepted();
      // A connection closed for a late connection_init whose client stays silent: its socket is
      // destroyed, not kept until ws gives up waiting for the client's answer to the close.
      const unanswered = setTimeout(() => {
        if (ws.readyState === ws.CLOSING) ws.terminate();
      }, CONNECTION_INIT_WAIT_MS + CLOSE_GRACE_MS);
      ws.once('close', () => clearTimeout(unanswered));
      sockets.emit('connection', ws, request);
    });
  });

  useServer<Record<string, unknown>, Connection>(
    {
      subscribe: (args) => args.rootValue as GraphQLResult,
      connectionInitWaitTimeout: CONNECTION_INIT_WAIT_MS,
      async onConnect(ctx) {
        const header = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        try {
          ctx.extra.viewer = await viewerOf(header, verify, 'authorization in connection_init');
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          // graphql-ws would close with a bare "Forbidden": say why.
          ctx.extra.socket.close(REFUSED, error.message.slice(0, 120));
          return false;
        }
        const { expiresAt } = ctx.extra.viewer;
        if (expiresAt !== undefined) closeAtExpiry(ctx.extra.socket, expiresAt);
        const client = clientKey(ctx.extra.viewer, addressOf(ctx.extra.request));
        const release = socketsOf.take(client);
        if (!release) {
          ctx.extra.socket.close(
            TOO_MANY,
            `RATE_LIMITED: at most ${options.socketsPerClient} WebSockets per client`,
          );
          return false;
        }
        ctx.extra.socket.once('close', release);
        ctx.extra.client = client;
        ctx.extra.logged = new Map();
        const params = ctx.connectionParams ?? {};
        ctx.extra.clientName = clientNames.of((name) => {
          const header = ctx.extra.request.headers[name];
          const param = params[name];
          return typeof header === 'string'
            ? header
            : typeof param === 'string'
              ? param
              : undefined;
        }, ctx.extra.viewer?.authenticated === true);
        return true;
      },
      async onSubscribe(ctx, id, payload: SubscribePayload) {
        const logged: Logged = {
          kind: 'subscription',
          requestId: randomUUID(),
          fields: {},
          started: 0,
          events: 0,
        };
        const subject = ctx.extra.viewer?.subject;
        const client = ctx.extra.client ?? 'unknown';
        const window = await limits.requests?.count(client);
        if (window?.refused) {
          const message = `Too many requests; wait ${window.resetSeconds} s and try again (each subscribe message counts)`;
          logger.info(
            { requestId: logged.requestId, transport: 'websocket', code: 'RATE_LIMITED', subject },
            'subscription refused',
          );
          return [graphql.errorOf(new DomainError('RATE_LIMITED', message))];
        }
        // Until it has subscribed or its answer is ready (a query's first part), the operation
        // runs under the time limit, as an HTTP request does; a query's later parts end at its
        // deadline (src/incremental/plugin.ts).
        let operation: SocketOperation | undefined;
        const limited = await options.timeLimit((deadline) => {
          operation = {
            requestId: logged.requestId,
            viewer: ctx.extra.viewer ?? anonymous,
            client,
            ...(ctx.extra.clientName ? { clientName: ctx.extra.clientName } : {}),
            transport: 'websocket',
            costAccount: limits.cost?.account(client),
            // The operation's name, as the access line of an HTTP request gets it.
            accessLog: logged.fields,
            deadline,
            streamed: socketFormat(payload.extensions),
          };
          return graphql.run(
            {
              query: payload.query,
              operationName: payload.operationName ?? undefined,
              variables: payload.variables ?? undefined,
              extensions: payload.extensions ?? undefined,
            },
            operation,
          );
        });
        if (limited.expired) letGo(limited.late);
        const result = limited.expired
          ? { errors: [graphql.errorOf(limited.error)] }
          : limited.value;
        if (operation?.executes) logged.kind = 'query';
        const { requestId, fields, kind } = logged;
        // Refused before it subscribed or ran (no error has a path): graphql-ws's error message.
        if (!isStream(result) && result.errors && !result.errors.every((error) => error.path)) {
          const code = result.errors?.map((error) => error.extensions?.code).join(',');
          logger.info(
            { requestId, transport: 'websocket', operation: fields.operation, code, subject },
            `${kind} refused`,
          );
          return result.errors;
        }
        logged.started = performance.now();
        ctx.extra.logged?.set(id, logged);
        logger.info(
          { requestId, transport: 'websocket', operation: fields.operation, subject },
          `${kind} started`,
        );
        // A stream (a subscription's events, a query's parts), or one answer (a query's, a
        // subscription field's that failed: a scope): each a `next` message, then complete.
        const member =
          operation && isStream(result) ? graphql.fanOut.memberOf(operation) : undefined;
        return {
          schema: {} as never,
          document: ALREADY_SUBSCRIBED,
          rootValue:
            member && isStream(result)
              ? memberChannel(result, member, {
                  socket: ctx.extra.socket,
                  id,
                  bufferBytes: options.bufferBytes,
                  logged,
                  logger,
                })
              : result,
        };
      },
      onNext: (ctx, id, _payload, _args, result: ExecutionResult) => {
        const logged = ctx.extra.logged?.get(id);
        if (logged) logged.events++;
        return result.errors ? { ...result, errors: result.errors.map(contractJson) } : result;
      },
      // After the last event, whoever ended it: the client, the server, or the socket closing.
      onComplete(ctx, id) {
        const logged = ctx.extra.logged?.get(id);
        if (!logged) return;
        ctx.extra.logged?.delete(id);
        const durationMs = Math.round(performance.now() - logged.started);
        logger.info(
          {
            requestId: logged.requestId,
            transport: 'websocket',
            operation: logged.fields.operation,
            subject: ctx.extra.viewer?.subject,
            events: logged.events,
            durationMs,
          },
          `${logged.kind} ended`,
        );
      },
      onError: (_ctx, _id, _payload, errors) => errors.map(contractJson),
      jsonMessageReviver: hashOnlyPayloads,
    },
    sockets,
  );
  sockets.on('error', (error) => logger.error({ err: error }, 'WebSocket server error'));

  return {
    async close() {
      closing = true;
      const open = [...sockets.clients];
      for (const socket of open) socket.close(1001, 'The server is shutting down');
      // A client that does not answer the close handshake is cut after the grace.
      await Promise.race([
        Promise.all(
          open.map((socket) =>
            socket.readyState === socket.CLOSED
              ? undefined
              : new Promise((resolve) => socket.once('close', resolve)),
          ),
        ),
        new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref()),
      ]);
      for (const socket of sockets.clients) socket.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
    },
  };
}
