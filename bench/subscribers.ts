import http from 'node:http';
import type { Fixture } from './fixture.js';
import type { ServerProcess } from './processes.js';
import { quantile } from './stats.js';

export interface SubscribersResult {
  database: string;
  subscribers: number;
  writes: number;
  /** Events received, of subscribers × writes expected. */
  delivered: number;
  /** Milliseconds from the write's response to each subscriber's event (negative: before it). */
  latencyMs: { p50: number; p99: number; max: number };
  /**
   * Per write, milliseconds from its response (its commit is before it) to the last subscriber's
   * event; and the same from the moment its request was sent (its commit is after it).
   */
  lastDeliveryMs: { p50: number; p99: number; max: number };
  lastDeliveryFromRequestMs: { p50: number; p99: number; max: number };
  /** Growth of the product's resident memory per open subscriber. */
  rssPerSubscriberKiB: number;
  rssBeforeMB: number;
  rssWithSubscribersMB: number;
}

const query =
  'subscription Watch { petChanged { kind id pet { id name status inventory { quantity } } } }';

/** Opens one GraphQL-over-SSE stream on a connection of its own; `onEvent` gets each event's time. */
function openStream(url: string, onEvent: (at: number, data: string) => void) {
  return new Promise<http.ClientRequest>((resolve, reject) => {
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
          if (message.startsWith('event: next')) onEvent(at, message);
          end = buffered.indexOf('\n\n');
        }
      });
      resolve(request);
    });
    request.end(body);
  });
}

async function openSubscriptions(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^petstore_subscriptions_open (\d+)$/m.exec(text)?.[1] ?? 0);
}

/**
 * `subscribers` SSE streams of `petChanged` on the product, then `writes` pet updates over REST
 * one after another: how long after each write's response every subscriber has its event, and the
 * product's memory per open subscriber. Each write is one event, delivered to each subscriber once
 * and in order, so a subscriber's n-th event is the n-th write's, however late it comes; a stream
 * whose event ids do not rise is a failure.
 */
export async function measureSubscribers(
  product: ServerProcess,
  fixture: Fixture,
  token: string,
  { subscribers = 1000, writes = 20, pauseMs = 250 } = {},
): Promise<SubscribersResult> {
  const rssBefore = (await product.stats()).rss;
  // Per write, when each subscriber had its event.
  const received = Array.from({ length: writes }, () => [] as number[]);
  let outOfOrder = 0;
  const streams: http.ClientRequest[] = [];
  const subscriber = () => {
    let count = 0;
    let lastId = -1n;
    return (at: number, message: string) => {
      const id = /^id: (\d+)$/m.exec(message)?.[1];
      if (id !== undefined) {
        if (BigInt(id) <= lastId) outOfOrder++;
        lastId = BigInt(id);
      }
      received[count++]?.push(at);
    };
  };
  // Opened in batches, as clients arriving.
  for (let i = 0; i < subscribers; i += 100) {
    const batch = Array.from({ length: Math.min(100, subscribers - i) }, () =>
      openStream(product.url, subscriber()),
    );
    streams.push(...(await Promise.all(batch)));
  }
  while ((await openSubscriptions(product.url)) < subscribers) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const rssWith = (await product.stats()).rss;

  const latencies: number[] = [];
  const lastDeliveries: number[] = [];
  const lastFromRequest: number[] = [];
  let delivered = 0;
  const answeredAt: number[] = [];
  const sentAt: number[] = [];
  for (let write = 0; write < writes; write++) {
    const petId = fixture.readIds[write] as number;
    const times = received[write] as number[];
    const sent = performance.now();
    const response = await fetch(`${product.url}/api/pets/${petId}`, {
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
    sentAt.push(sent);
    answeredAt.push(answered);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  // The late ones, for a while.
  const deadline = performance.now() + 10_000;
  while (received.some((times) => times.length < subscribers) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const stream of streams) stream.destroy();
  if (outOfOrder > 0) throw new Error(`${outOfOrder} events came out of order`);
  received.forEach((times, write) => {
    const answered = answeredAt[write] as number;
    delivered += times.length;
    for (const at of times) latencies.push(at - answered);
    if (times.length > 0) {
      lastDeliveries.push(Math.max(...times) - answered);
      lastFromRequest.push(Math.max(...times) - (sentAt[write] as number));
    }
  });

  const round = (value: number) => Math.round(value * 10) / 10;
  const spread = (values: number[]) => ({
    p50: round(quantile(values, 0.5)),
    p99: round(quantile(values, 0.99)),
    max: round(Math.max(...values)),
  });
  return {
    database: fixture.database,
    subscribers,
    writes,
    delivered,
    latencyMs: spread(latencies),
    lastDeliveryMs: spread(lastDeliveries),
    lastDeliveryFromRequestMs: spread(lastFromRequest),
    rssPerSubscriberKiB: Math.round((rssWith - rssBefore) / subscribers / 1024),
    rssBeforeMB: Math.round(rssBefore / 2 ** 20),
    rssWithSubscribersMB: Math.round(rssWith / 2 ** 20),
  };
}

export function formatSubscribers(results: readonly SubscribersResult[]): string {
  const first = results[0];
  if (!first) return '';
  return [
    `### ${first.subscribers} SSE subscribers (petChanged), ${first.writes} REST writes`,
    '',
    '| database | delivered | each event p50 / p99 / max ms | last subscriber per write p50 / p99 / max ms | the same from the request | RSS before | RSS with subscribers | per subscriber |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
    ...results.map(
      (result) =>
        `| ${result.database} | ${result.delivered} / ${result.subscribers * result.writes} | ${triple(result.latencyMs)} | ${triple(result.lastDeliveryMs)} | ${triple(result.lastDeliveryFromRequestMs)} | ${result.rssBeforeMB} MB | ${result.rssWithSubscribersMB} MB | ${result.rssPerSubscriberKiB} KiB |`,
    ),
  ].join('\n');
}

const triple = ({ p50, p99, max }: { p50: number; p99: number; max: number }) =>
  `${p50} / ${p99} / ${max}`;
