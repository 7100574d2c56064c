import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ExecutionResult, GraphQLError, parse } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { type TokenVerifier, viewerOf } from '../auth/tokens.js';
import { anonymous, type Viewer } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { rawErrorResponse } from '../http/client-error.js';
import type { Logger } from '../logger.js';
import { clientKey } from '../rate-limit/middleware.js';
import { type Handshake, traceHandshake } from '../tracing/http.js';
import type { GraphQLEdge, GraphQLResult } from './yoga.js';

/** The path WebSocket clients connect to: the same as GraphQL over HTTP. */
export const WEBSOCKET_PATH = '/graphql';

export interface WebSocketOptions {
  graphql: GraphQLEdge;
  verify: TokenVerifier;
  /** The largest message accepted, in bytes (the body limit of HTTP requests). */
  maxPayload: number;
  logger: Logger;
}

export interface WebSocketTransport {
  /** Closes every connection with 1001 (their subscriptions end) and stops accepting new ones. */
  close(): Promise<void>;
}

/** What a connection learned from its `connection_init`: the caller. */
type Connection = { viewer?: Viewer; client?: string };

/** Close code of a refused `connection_init` (graphql-ws's Forbidden), with the reason why. */
const REFUSED = 4403;

/**
 * graphql-ws runs an operation whose arguments name a subscription through `subscribe`; the
 * operation has already run through Yoga, so this constant document only says which.
 */
const ALREADY_SUBSCRIBED = parse('subscription { __typename }');

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

const isStream = (result: GraphQLResult): result is AsyncIterable<ExecutionResult> =>
  Symbol.asyncIterator in result;

/** A refused upgrade: the contract's error, and the headers that say what would be accepted. */
interface Refusal {
  error: DomainError;
  headers?: Record<string, string>;
}

/**
 * Why ws refused a handshake (its messages: a method other than GET, a missing or bad
 * `Sec-WebSocket-Key`, `-Version`, `-Protocol` or `-Extensions` header), as the contract's error.
 */
function handshakeRefusal(reason: string): Refusal {
  if (reason === 'Invalid HTTP method') {
    const error = new DomainError('METHOD_NOT_ALLOWED', 'A WebSocket upgrade is a GET request');
    return { error, headers: { Allow: 'GET' } };
  }
  const error = new DomainError('MALFORMED_REQUEST', `Not a valid WebSocket upgrade: ${reason}`);
  // RFC 6455: a server refusing the client's version says which one it speaks.
  return reason.includes('Version')
    ? { error, headers: { 'Sec-WebSocket-Version': '13' } }
    : { error };
}

/** Answers an upgrade this server does not take with the Error shape, and closes the socket. */
function refuseUpgrade(socket: Duplex, handshake: Handshake, { error, headers }: Refusal): void {
  if (socket.writable) socket.end(rawErrorResponse(error, headers));
  else socket.destroy();
  handshake.refused(error.toBody());
}

/**
 * GraphQL subscriptions over WebSocket (the `graphql-transport-ws` protocol of graphql-ws) on
 * `server`'s /graphql. The token comes in the `connection_init` payload (an invalid one closes the
 * connection with 4403 and the reason); each `subscribe` runs through the GraphQL edge's own
 * pipeline (`GraphQLEdge.run`), so it meets every policy an HTTP request meets.
 */
export function serveWebSockets(server: Server, options: WebSocketOptions): WebSocketTransport {
  const { graphql, verify, logger } = options;
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

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
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
    handshakes.set(request, handshake);
    sockets.handleUpgrade(request, socket, head, (ws) => {
      handshake.accepted();
      sockets.emit('connection', ws, request);
    });
  });

  useServer<Record<string, unknown>, Connection>(
    {
      subscribe: (args) => args.rootValue as GraphQLResult,
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
        const address = ctx.extra.request.socket.remoteAddress ?? 'unknown';
        ctx.extra.client = clientKey(ctx.extra.viewer, address);
        return true;
      },
      async onSubscribe(ctx, _id, payload: SubscribePayload) {
        const result = await graphql.run(
          {
            query: payload.query,
            operationName: payload.operationName ?? undefined,
            variables: payload.variables ?? undefined,
            extensions: payload.extensions ?? undefined,
          },
          {
            requestId: randomUUID(),
            viewer: ctx.extra.viewer ?? anonymous,
            client: ctx.extra.client ?? 'unknown',
            transport: 'websocket',
          },
        );
        // Refused before it subscribed (no error has a path): graphql-ws's error message.
        if (!isStream(result) && !result.errors?.every((error) => error.path))
          return result.errors ?? [new GraphQLError('The operation did not subscribe')];
        // A stream, or a subscription field that failed (a scope): its events, then complete.
        return {
          schema: {} as never,
          document: ALREADY_SUBSCRIBED,
          rootValue: result,
        };
      },
      onNext: (_ctx, _id, _payload, _args, result: ExecutionResult) =>
        result.errors ? { ...result, errors: result.errors.map(contractJson) } : result,
      onError: (_ctx, _id, _payload, errors) => errors.map(contractJson),
    },
    sockets,
  );
  sockets.on('error', (error) => logger.error({ err: error }, 'WebSocket server error'));

  return {
    async close() {
      closing = true;
      const open = [...sockets.clients];
      for (const socket of open) socket.close(1001, 'The server is shutting down');
      // A client that does not answer the close handshake is cut after a second.
      await Promise.race([
        Promise.all(
          open.map((socket) =>
            socket.readyState === socket.CLOSED
              ? undefined
              : new Promise((resolve) => socket.once('close', resolve)),
          ),
        ),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
      for (const socket of sockets.clients) socket.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
    },
  };
}
