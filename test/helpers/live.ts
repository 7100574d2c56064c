import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ExecutionResult } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, expect } from 'vitest';
import WebSocket from 'ws';
import type { App } from '../../src/app.js';
import { mintToken } from '../../src/auth/tokens.js';
import { scopes } from '../../src/domain/authorization.js';
import { useTestApp } from './app.js';
import type { ServerProcess } from './server.js';

/** A running server, in a process of its own or in the test's (only its address is used). */
export type Served = Pick<ServerProcess, 'url'>;

/**
 * Serves a test app over real HTTP and WebSocket on a free port of this process, as `server.ts`
 * does: for tests that need a real connection and the app's insides (its outbox) at once.
 */
export async function serveApp(app: App): Promise<Served & { close(): Promise<void> }> {
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await new Promise((resolve) => server.once('listening', resolve));
  app.serveWebSockets(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await app.endSubscriptions();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * One test app per file (`useTestApp`), served over real HTTP and WebSocket on a free port
 * (`serveApp`) for the file's tests: `server()` once it is up.
 */
export function useServedApp(env: Record<string, string> = {}) {
  const app = useTestApp(env);
  let served: (Served & { close(): Promise<void> }) | undefined;
  beforeAll(async () => {
    served = await serveApp(app());
  });
  afterAll(() => served?.close());
  const server = (): Served => {
    if (!served) throw new Error('the test server is not up');
    return served;
  };
  return { app, server };
}

/** The secret the real servers of the subscription tests verify tokens with. */
export const liveSecret = randomBytes(32).toString('base64url');

/** A token for the real server: all scopes unless given, a fresh subject unless given. */
export function liveToken(
  granted: readonly string[] = scopes,
  subject = `s-${randomBytes(4).toString('hex')}`,
) {
  return mintToken(liveSecret, { scopes: granted, subject });
}

/** The `ws://` URL of a real server's GraphQL endpoint. */
export function wsUrl(server: Served): string {
  return `${server.url.replace(/^http/, 'ws')}/graphql`;
}

export interface Sink<T = ExecutionResult> {
  next(value: T): void;
  error(error: unknown): void;
  complete(): void;
}

/** A subscription as a test reads it: results in order, then its end (complete or error). */
export interface Events<T = ExecutionResult> {
  /** The next result not read yet; fails after `timeoutMs`. */
  next(timeoutMs?: number): Promise<T>;
  /** Resolves with the error (undefined on complete) once the subscription has ended. */
  readonly ended: Promise<unknown>;
  /** Results received and not read yet. */
  readonly unread: T[];
  /** Unsubscribes. */
  close(): void;
}

/** Turns a client's `subscribe(sink) → unsubscribe` into `Events`. */
export function events<T = ExecutionResult>(subscribe: (sink: Sink<T>) => () => void): Events<T> {
  const unread: T[] = [];
  let waiter: (() => void) | undefined;
  let end: (error: unknown) => void = () => {};
  const ended = new Promise<unknown>((resolve) => {
    end = resolve;
  });
  let finished = false;
  const wake = () => {
    waiter?.();
    waiter = undefined;
  };
  const unsubscribe = subscribe({
    next: (value) => {
      unread.push(value);
      wake();
    },
    error: (error) => {
      finished = true;
      end(error);
      wake();
    },
    complete: () => {
      finished = true;
      end(undefined);
      wake();
    },
  });
  return {
    unread,
    ended,
    close: unsubscribe,
    async next(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (unread.length === 0) {
        if (finished) throw new Error(`the subscription ended: ${String(await ended)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiter = resolve;
          setTimeout(resolve, left);
        });
      }
      return unread.shift() as T;
    },
  };
}

/** A graphql-ws client on the real server (Node 20 has no global WebSocket: the `ws` package). */
export function wsClient(server: Served, token?: string) {
  const closes: { code: number; reason: string }[] = [];
  const client = createWsClient({
    url: wsUrl(server),
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    on: {
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        closes.push({ code, reason: String(reason) });
      },
    },
  });
  return Object.assign(client, { closes });
}

/**
 * A WebSocket upgrade request as a browser sends it (`method`, `path` and `headers` changed at
 * will), and how the server answered: 101 (the socket is then closed) or a response and its body.
 */
export function upgradeRequest(
  server: Served,
  path: string,
  { method = 'GET', headers = {} }: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${server.url}${path}`, {
      method,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        'sec-websocket-protocol': 'graphql-transport-ws',
        ...headers,
      },
    });
    request.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body: '' });
    });
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

/** A graphql-sse client (its default, distinct-connections mode) on the real server. */
export function sseClient(server: Served, token?: string) {
  return createSseClient({
    url: `${server.url}/graphql`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
  });
}

/** One message of a GraphQL-over-SSE stream: `next` (with the event's `id`) or `complete`. */
export interface SseMessage {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * A GraphQL-over-SSE subscription read by hand, as a browser's EventSource sees it: every
 * message's `id:`, and `Last-Event-ID` sent when given (a reconnection). GET puts the document in
 * the query string, as EventSource must.
 */
export function sseStream(
  server: Served,
  request: { query: string; token?: string; lastEventId?: string; method?: 'GET' | 'POST' },
): Events<SseMessage> & { readonly status: Promise<number> } {
  let resolveStatus: (status: number) => void = () => {};
  const status = new Promise<number>((resolve) => {
    resolveStatus = resolve;
  });
  const stream = events<SseMessage>((sink) => {
    const get = request.method === 'GET';
    const body = get ? undefined : JSON.stringify({ query: request.query });
    const url = get
      ? `${server.url}/graphql?query=${encodeURIComponent(request.query)}`
      : `${server.url}/graphql`;
    const outgoing = httpRequest(url, {
      method: get ? 'GET' : 'POST',
      agent: false,
      headers: {
        accept: 'text/event-stream',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
        ...(request.lastEventId === undefined ? {} : { 'last-event-id': request.lastEventId }),
      },
    });
    outgoing.on('error', (error) => sink.error(error));
    outgoing.on('response', (response) => {
      resolveStatus(response.statusCode ?? 0);
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffered += chunk;
        let end = buffered.indexOf('\n\n');
        while (end >= 0) {
          const lines = buffered.slice(0, end).split('\n');
          buffered = buffered.slice(end + 2);
          end = buffered.indexOf('\n\n');
          const field = (name: string) =>
            lines
              .find((line) => line.startsWith(`${name}:`))
              ?.slice(name.length + 1)
              .trim();
          const event = field('event');
          if (event === undefined) continue; // a keep-alive comment
          sink.next({ event, id: field('id'), data: field('data') ?? '' });
          if (event === 'complete') sink.complete();
        }
      });
      response.on('end', () => sink.complete());
      response.on('error', (error) => sink.error(error));
    });
    outgoing.end(body);
    return () => outgoing.destroy();
  });
  return Object.assign(stream, { status });
}

/** The number of open subscriptions the server reports in /metrics. */
export async function openSubscriptions(server: Served): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^petstore_subscriptions_open (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/**
 * Waits until the server holds `count` open subscriptions: a subscription is live on the server
 * only some time after the client sent it, and a write before that is not seen.
 */
export async function untilOpen(server: Served, count: number, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  let open = await openSubscriptions(server);
  while (open !== count) {
    if (Date.now() > deadline) throw new Error(`${open} subscriptions open, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    open = await openSubscriptions(server);
  }
}

/** Every order of a pet on the real server, read page by page over REST. */
export async function ordersOfPet(server: Served, token: string, petId: string) {
  const orders: { id: number; quantity: number }[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await fetch(
      `${server.url}/api/store/orders?petId=${petId}&limit=100&offset=${offset}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const rows = (await page.json()) as { id: number; quantity: number }[];
    orders.push(...rows);
    if (rows.length < 100) break;
  }
  return orders;
}

/** A REST call on the real server, with a token. */
export async function restCall(
  server: Served,
  method: string,
  path: string,
  token: string,
  json?: unknown,
) {
  const response = await fetch(`${server.url}/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
  };
}

/** A pet with `quantity` in stock, made over REST: its id (as a string) and its category's. */
export async function restPet(server: Served, token: string, quantity = 5) {
  const category = await restCall(server, 'POST', '/categories', token, {
    name: `Live ${randomBytes(4).toString('hex')}`,
  });
  const pet = await restCall(server, 'POST', '/pets', token, {
    name: 'Comet',
    categoryId: category.body?.id,
  });
  const id = String(pet.body?.id);
  if (quantity > 0) await restCall(server, 'PUT', `/store/inventory/${id}`, token, { quantity });
  return { id, categoryId: category.body?.id as number };
}

/** A subscription event as clients receive it: its data, and its cursor in `extensions`. */
export function eventOf(data: Record<string, unknown>) {
  return { data, extensions: { cursor: expect.stringMatching(/^\d+$/) } };
}

/**
 * A subscription's first event as the server sends it: every subscription field is
 * `@experimental`, and the first event of a stream carries the warning (later ones do not).
 */
export function firstEvent<T extends { extensions?: object }>(event: T, field: string) {
  return {
    ...event,
    extensions: {
      ...event.extensions,
      warnings: [
        {
          code: 'EXPERIMENTAL',
          coordinate: `Subscription.${field}`,
          message: `Subscription.${field} is experimental: it may change or disappear without notice.`,
        },
      ],
    },
  };
}

/** The first error's code and status of a result, or of the errors a client reported. */
export function codeOf(result: unknown): { code: unknown; status: unknown } {
  const errors = Array.isArray(result) ? result : (result as ExecutionResult | undefined)?.errors;
  const extensions = (errors?.[0] as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return { code: extensions?.code, status: extensions?.status };
}
