import http from 'node:http';
import WebSocket from 'ws';
import type { Fixture } from './fixture.js';
import type { ServerProcess } from './processes.js';
import { quantile } from './stats.js';

/** How the subscribers are served: the product over SSE or graphql-ws, or the SSE floor. */
export type SubscriberTransport = 'sse' | 'graphql-ws' | 'sse floor';

export interface SubscribersResult {
  database: string;
  transport: SubscriberTransport;
  subscribers: number;
  writes: number;
  /** Events received, of subscribers × writes expected. */
  delivered: number;
  /** Milliseconds from the write's response to each subscriber's event (negative: before it). */
  latencyMs: Spread;
  /** Per write, milliseconds from its response (its commit is before it) to the last subscriber. */
  lastDeliveryMs: Spread;
  /** Growth of the server's resident memory per open subscriber. */
  rssPerSubscriberKiB: number;
  rssBeforeMB: number;
  rssWithSubscribersMB: number;
}

interface Spread {
  p50: number;
  p99: number;
  max: number;
}

const query =
  'subscription Watch { petChanged { kind id pet { id name status inventory { quantity } } } }';

/** Each subscriber's events: when each came, and its cursor (rising, or the run fails). */
type OnEvent = (at: number, cursor: string | undefined) => void;

/** One GraphQL-over-SSE stream on a connection of its own. */
function openSse(url: string, onEvent: OnEvent) {
  return new Promise<() => void>((resolve, reject) => {
    const body = JSON.stringify({ query });
    const request = http.request(`${url}/graphql`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'content-length': Buffer.byteLength(body),
      },
    });
    request.once('error', reject);
    request.once('response', (response) => {
      if (response.statusCode !== 200) reject(new Error(`SSE answered ${response.statusCode}`));
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const at = performance.now();
        buffered += chunk;
        let end = buffered.indexOf('\n\n');
        while (end >= 0) {
          const message = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          if (message.startsWith('event: next')) onEvent(at, /^id: (\d+)$/m.exec(message)?.[1]);
          end = buffered.indexOf('\n\n');
        }
      });
      resolve(() => request.destroy());
    });
    request.end(body);
  });
}

/** One graphql-ws subscription on a WebSocket of its own (the protocol by hand, as a client). */
function openWebSocket(url: string, onEvent: OnEvent) {
  return new Promise<() => void>((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    socket.on('message', (data: Buffer) => {
      const at = performance.now();
      const message = JSON.parse(data.toString()) as {
        type: string;
        payload?: { extensions?: { cursor?: string } };
      };
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
        resolve(() => socket.terminate());
      } else if (message.type === 'next') onEvent(at, message.payload?.extensions?.cursor);
      else if (message.type === 'ping') socket.send(JSON.stringify({ type: 'pong' }));
    });
  });
}

async function openSubscriptions(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^petstore_subscriptions_open (\d+)$/m.exec(text)?.[1] ?? 0);
}

/**
 * `subscribers` subscriptions of `petChanged` on `server` (SSE streams or graphql-ws sockets, one
 * connection each, opened from this process), then `writes` pet updates over REST one after
 * another: how long after each write's response every subscriber has its event, and the server's
 * memory per open subscriber. Each write is one event, delivered to each subscriber once and in
 * order, so a subscriber's n-th event is the n-th write's, however late it comes; a stream whose
 * event ids do not rise is a failure.
 */
export async function measureSubscribers(
  server: ServerProcess,
  fixture: Fixture,
  token: string,
  transport: SubscriberTransport,
  { subscribers = 1000, writes = 20, pauseMs = 250 } = {},
): Promise<SubscribersResult> {
  const rssBefore = (await server.stats()).rss;
  const open = transport === 'graphql-ws' ? openWebSocket : openSse;
  // Per write, when each subscriber had its event.
  const received = Array.from({ length: writes }, () => [] as number[]);
  let outOfOrder = 0;
  const closes: (() => void)[] = [];
  const subscriber = (): OnEvent => {
    let count = 0;
    let lastId = -1n;
    return (at, cursor) => {
      if (cursor !== undefined) {
        if (BigInt(cursor) <= lastId) outOfOrder++;
        lastId = BigInt(cursor);
      }
      received[count++]?.push(at);
    };
  };
  // Opened in batches, as clients arriving.
  for (let i = 0; i < subscribers; i += 100) {
    const batch = Array.from({ length: Math.min(100, subscribers - i) }, () =>
      open(server.url, subscriber()),
    );
    closes.push(...(await Promise.all(batch)));
  }
  while ((await openSubscriptions(server.url)) < subscribers) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const rssWith = (await server.stats()).rss;

  const latencies: number[] = [];
  const lastDeliveries: number[] = [];
  const answeredAt: number[] = [];
  for (let write = 0; write < writes; write++) {
    const petId = fixture.readIds[write] as number;
    const times = received[write] as number[];
    const response = await fetch(`${server.url}/api/pets/${petId}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Live ${write}`, categoryId: 1 }),
    });
    const answered = performance.now();
    if (response.status !== 200) throw new Error(`the write answered ${response.status}`);
    await response.arrayBuffer();
    // Every subscriber's event, or the pause's end.
    const deadline = answered + Math.max(pauseMs, 2000);
    while (times.length < subscribers && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    answeredAt.push(answered);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  // The late ones, for a while.
  const deadline = performance.now() + 10_000;
  while (received.some((times) => times.length < subscribers) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const close of closes) close();
  if (outOfOrder > 0) throw new Error(`${outOfOrder} events came out of order`);
  let delivered = 0;
  received.forEach((times, write) => {
    const answered = answeredAt[write] as number;
    delivered += times.length;
    for (const at of times) latencies.push(at - answered);
    if (times.length > 0) lastDeliveries.push(largest(times) - answered);
  });
  // Until the server has seen every connection go.
  const gone = performance.now() + 10_000;
  while ((await openSubscriptions(server.url)) > 0 && performance.now() < gone) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const round = (value: number) => Math.round(value * 10) / 10;
  const spread = (values: number[]) => ({
    p50: round(quantile(values, 0.5)),
    p99: round(quantile(values, 0.99)),
    max: round(largest(values)),
  });
  return {
    database: fixture.database,
    transport,
    subscribers,
    writes,
    delivered,
    latencyMs: spread(latencies),
    lastDeliveryMs: spread(lastDeliveries),
    rssPerSubscriberKiB: Math.round((rssWith - rssBefore) / subscribers / 1024),
    rssBeforeMB: Math.round(rssBefore / 2 ** 20),
    rssWithSubscribersMB: Math.round(rssWith / 2 ** 20),
  };
}

export function formatSubscribers(results: readonly SubscribersResult[]): string {
  const first = results[0];
  if (!first) return '';
  return [
    `### ${first.subscribers} subscribers (petChanged), ${first.writes} REST writes`,
    '',
    '| database | served by | delivered | each event p50 / p99 / max ms | last subscriber per write p50 / p99 / max ms | RSS before | RSS with subscribers | per subscriber |',
    '|---|---|--:|--:|--:|--:|--:|--:|',
    ...results.map(
      (result) =>
        `| ${result.database} | ${result.transport} | ${result.delivered} / ${result.subscribers * result.writes} | ${triple(result.latencyMs)} | ${triple(result.lastDeliveryMs)} | ${result.rssBeforeMB} MB | ${result.rssWithSubscribersMB} MB | ${result.rssPerSubscriberKiB} KiB |`,
    ),
  ].join('\n');
}

/** The largest value (a spread of 200,000 arguments would overflow the stack). */
const largest = (values: number[]) => values.reduce((a, b) => (b > a ? b : a), -Infinity);

const triple = ({ p50, p99, max }: Spread) => `${p50} / ${p99} / ${max}`;
