import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import {
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
  GraphQLError as GraphQLErrorClass,
  getOperationAST,
} from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { GraphQLParams } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
import { type TokenVerifier, viewerOf } from '../auth/tokens.js';
import { anonymous, type Viewer } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { clientKey } from '../http/rate-limit.js';
import type { Logger } from '../logger.js';
import type { GraphQLEdge } from './yoga.js';

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
type Connection = {
  viewer?: Viewer;
  client?: string;
};

/** Close code of a refused `connection_init` (graphql-ws's Forbidden), with the reason why. */
const REFUSED = 4403;

/** The bearer token of a `connection_init` payload: `{ authorization }` or `{ Authorization }`. */
function bearerOf(params: Readonly<Record<string, unknown>> | undefined): unknown {
  return params?.authorization ?? params?.Authorization;
}

/** An error as the contract sends it: code and status in `extensions`, nothing of Yoga's `http`. */
function contractJson(error: GraphQLError) {
  const json = error.toJSON();
  if (json.extensions) {
    const { http: _http, ...extensions } = json.extensions;
    return { ...json, extensions };
  }
  return json;
}

/**
 * GraphQL subscriptions over WebSocket (the `graphql-transport-ws` protocol of graphql-ws) on
 * `server`'s /graphql. The token comes in the `connection_init` payload (an invalid one closes the
 * connection with 4403 and the reason); each `subscribe` goes through the same document limits
 * (armor's depth, aliases and tokens, and the cost rule), context and error masking as HTTP.
 * Queries and mutations belong to HTTP, where the time and rate limits apply.
 */
export function serveWebSockets(server: Server, options: WebSocketOptions): WebSocketTransport {
  const { graphql, verify, logger } = options;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload });
  let closing = false;

  server.on('upgrade', (request, socket, head) => {
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    if (pathname !== WEBSOCKET_PATH || closing) {
      const body = JSON.stringify(
        closing
          ? new DomainError('UNAVAILABLE', 'The server is shutting down').toBody()
          : new DomainError('NOT_FOUND', `No WebSocket endpoint at ${pathname}`).toBody(),
      );
      socket.end(
        `HTTP/1.1 ${closing ? '503 Service Unavailable' : '404 Not Found'}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  });

  const refuse = (error: unknown): GraphQLError[] => {
    const masked = graphql.maskError(error);
    return [
      masked instanceof GraphQLErrorClass
        ? masked
        : new GraphQLErrorClass(masked.message, { originalError: masked }),
    ];
  };

  useServer<Record<string, unknown>, Connection>(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args),
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
      async onConnect(ctx) {
        const header = bearerOf(ctx.connectionParams);
        const address = ctx.extra.request.socket.remoteAddress ?? 'unknown';
        let viewer: Viewer;
        try {
          viewer = await viewerOf(header, verify, 'authorization in connection_init');
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          // graphql-ws would close with a bare "Forbidden": say why.
          ctx.extra.socket.close(REFUSED, error.message.slice(0, 120));
          return false;
        }
        ctx.extra.viewer = viewer;
        ctx.extra.client = clientKey(viewer, address);
        return true;
      },
      async onSubscribe(ctx, _id, payload: SubscribePayload) {
        const requestId = randomUUID();
        try {
          // The persisted-operations rule and the cost rule, as HTTP requests meet them.
          const params = graphql.resolvePersisted({
            query: payload.query,
            operationName: payload.operationName ?? undefined,
            variables: payload.variables ?? undefined,
            extensions: payload.extensions ?? undefined,
          }) as GraphQLParams;
          const enveloped = graphql.yoga.getEnveloped({
            requestId,
            viewer: ctx.extra.viewer ?? anonymous,
            client: ctx.extra.client ?? 'unknown',
            params,
          });
          // Parsing enforces the token limit; validation the depth and alias limits.
          const document = enveloped.parse(params.query as string);
          const errors = enveloped.validate(enveloped.schema, document);
          if (errors.length > 0) return errors.flatMap((error: GraphQLError) => refuse(error));
          const operation = getOperationAST(document, params.operationName);
          if (operation && operation.operation !== 'subscription') {
            throw new DomainError(
              'METHOD_NOT_ALLOWED',
              `The WebSocket carries subscriptions; send a ${operation.operation} by POST to /graphql`,
            );
          }
          await graphql.checkCost([params]);
          const args: ExecutionArgs = {
            schema: enveloped.schema,
            document,
            operationName: params.operationName,
            variableValues: params.variables,
            contextValue: await enveloped.contextFactory(),
            rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
          };
          return args;
        } catch (error) {
          return refuse(error);
        }
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

type OperationResult = Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;

/** The root value of a WebSocket operation: its enveloped execute and subscribe (Yoga's recipe). */
type Enveloped = {
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
};
