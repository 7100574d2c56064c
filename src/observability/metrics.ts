import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Database } from '../db/client.js';
import { BoundedLabel } from './bounded-label.js';
import { SeriesCounter, SeriesHistogram } from './series.js';

type HttpLabels = 'method' | 'route' | 'status' | 'client_name';

/** The app's Prometheus metrics, in a registry of its own (several apps can share a process). */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: SeriesCounter<HttpLabels | 'client_version'>;
  readonly httpDuration: SeriesHistogram<HttpLabels>;
  /** Calls to deprecated REST routes (`api="rest"`) and GraphQL fields (`api="graphql"`). */
  readonly deprecatedCalls: SeriesCounter<'api' | 'operation' | 'client'>;
  /** Redis commands or connections that failed (the product went on without Redis). */
  readonly redisFailures: SeriesCounter;
  /** Response cache lookups that found a stored response, by edge (`graphql`, `rest`). */
  readonly cacheHits: SeriesCounter<'edge'>;
  /** Response cache lookups that found nothing (the request ran), by edge. */
  readonly cacheMisses: SeriesCounter<'edge'>;
  /** Responses removed from the cache: `write` (a change evicted it), `capacity`, `expired`. */
  readonly cacheEvictions: SeriesCounter<'reason'>;
  /** Introspection-only queries by where their answer came from: `memory` or `executed`. */
  readonly introspectionAnswers: SeriesCounter<'source'>;
  /**
   * Executions of a subscription's document on an event: one per event and group of subscribers
   * sharing it (src/live/fan-out.ts), however many they are.
   */
  readonly subscriptionExecutions: SeriesCounter;
  /** Groups of subscribers receiving the same bytes, each with one reader of the events. */
  readonly subscriptionGroups: Pick<Gauge, 'set'>;
  /** GraphQL operation names as a bounded label value. */
  operationName(name: string | undefined): string;
  /** Who is calling, as a bounded label value: the token subject, else the User-Agent. */
  client(subject: string | undefined, userAgent: string | null | undefined): string;
}

/**
 * `live`, when given, is read for the number of open subscriptions (both transports): the gauge
 * `petstore_subscriptions_open`.
 */
export function createMetrics(database: Database, live?: { readonly size: number }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  if (live) {
    new Gauge({
      name: 'petstore_subscriptions_open',
      help: 'GraphQL subscriptions open, over Server-Sent Events and WebSocket',
      registers: [registry],
      collect() {
        this.set(live.size);
      },
    });
  }

  let reportedStatements = 0;
  new Counter({
    name: 'petstore_db_statements_total',
    help: 'SQL statements sent to the database',
    registers: [registry],
    collect() {
      const count = database.statementCount();
      this.inc(count - reportedStatements);
      reportedStatements = count;
    },
  });

  const clients = new BoundedLabel(200);
  const operationNames = new BoundedLabel(200);
  return {
    registry,
    httpRequests: new SeriesCounter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route pattern, status and client name and version',
      labelNames: ['method', 'route', 'status', 'client_name', 'client_version'],
      registers: [registry],
    }),
    httpDuration: new SeriesHistogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request (until the response headers), by method, route pattern, status and client name',
      labelNames: ['method', 'route', 'status', 'client_name'],
      registers: [registry],
    }),
    deprecatedCalls: new SeriesCounter({
      name: 'petstore_deprecated_calls_total',
      help: 'Calls to deprecated REST routes and GraphQL fields, by client (token subject, else User-Agent)',
      labelNames: ['api', 'operation', 'client'],
      registers: [registry],
    }),
    redisFailures: new SeriesCounter({
      name: 'petstore_redis_failures_total',
      help: 'Redis commands or connections that failed; requests went on without Redis',
      registers: [registry],
    }),
    cacheHits: new SeriesCounter({
      name: 'petstore_response_cache_hits_total',
      help: 'Public reads answered from the response cache, by edge',
      labelNames: ['edge'],
      registers: [registry],
    }),
    cacheMisses: new SeriesCounter({
      name: 'petstore_response_cache_misses_total',
      help: 'Public reads the response cache could not answer (they ran), by edge',
      labelNames: ['edge'],
      registers: [registry],
    }),
    cacheEvictions: new SeriesCounter({
      name: 'petstore_response_cache_evictions_total',
      help: 'Responses removed from the response cache: write (a change evicted it), capacity, expired',
      labelNames: ['reason'],
      registers: [registry],
    }),
    introspectionAnswers: new SeriesCounter({
      name: 'petstore_introspection_answers_total',
      help: 'Introspection-only GraphQL queries, by where their answer came from: memory or executed',
      labelNames: ['source'],
      registers: [registry],
    }),
    subscriptionGroups: new Gauge({
      name: 'petstore_subscription_groups',
      help: 'Groups of live subscribers receiving the same bytes (one execution per event each)',
      registers: [registry],
    }),
    subscriptionExecutions: new SeriesCounter({
      name: 'petstore_subscription_executions_total',
      help: 'Executions of subscription documents on events: one per event and group of subscribers receiving the same bytes',
      registers: [registry],
    }),
    operationName: (name) => operationNames.value(name, 'Anonymous'),
    client: (subject, userAgent) => clients.value(subject ?? userAgent),
  };
}
