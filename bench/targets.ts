import type { BenchDatabase } from './fixture.js';
import type { IdleMemory, ScenarioResult } from './report.js';

/** The targets, checked against one run, per database. */
export interface TargetCheck {
  target: string;
  measured: string;
  /** Undefined when the scenario could not be measured in this build. */
  met: boolean | undefined;
}

const MB = 1024 * 1024;

const labels: Record<BenchDatabase, string> = { sqlite: 'SQLite', postgresql: 'PostgreSQL' };

/** The product against its framework floor (product ÷ floor req/s, median of the rounds). */
const AGAINST_FLOOR = { 'graphql-pet': 0.8, 'rest-pet': 0.9 };
/** The 100-pet page against the raw baseline. */
const PAGE_AGAINST_RAW = 0.45;
/**
 * A response-cache hit against the raw baseline: SQLite's raw server needs so little CPU a request
 * (no network round trip to a database) that a hit, which still writes the access line and the
 * metrics, can reach half of it.
 */
const CACHED_AGAINST_RAW: Record<BenchDatabase, number> = { sqlite: 0.5, postgresql: 0.8 };
/** How much slower a `placeOrder` with an Idempotency-Key may be than one without. */
const MAX_KEYED_SLOWDOWN = 0.15;
const MAX_P99_MS = 10;
const MAX_RSS_MB = 250;
const MAX_IDLE_RSS_MB = 170;
/** placeOrder answered per second (with a token, 10 connections). */
const MIN_ORDERS_PER_SEC: Record<BenchDatabase, number> = { sqlite: 1000, postgresql: 500 };

const times = (value: number | undefined) =>
  value === undefined ? 'not measured' : `${value.toFixed(2)}×`;

function checkDatabase(
  database: BenchDatabase,
  results: readonly ScenarioResult[],
  idle: IdleMemory | undefined,
) {
  const label = labels[database];
  const find = (name: string) => results.find((result) => result.name === name);
  const againstFloor = (name: keyof typeof AGAINST_FLOOR, what: string): TargetCheck => {
    const value = find(name)?.productToFloor?.median;
    return {
      target: `${label}: ${what} ≥ ${AGAINST_FLOOR[name].toFixed(2)}× floor req/s`,
      measured: times(value),
      met: value === undefined ? undefined : value >= AGAINST_FLOOR[name],
    };
  };
  const againstRaw = (name: string, what: string, least: number): TargetCheck => {
    const value = find(name)?.ratio?.median;
    return {
      target: `${label}: ${what} ≥ ${least.toFixed(2)}× baseline req/s`,
      measured: times(value),
      met: value === undefined ? undefined : value >= least,
    };
  };
  // Every read, the `-cached` scenarios included: their second product process is still the product.
  const reads = results.filter((result) => result.product && !result.name.startsWith('place-'));
  const worst = reads.reduce<ScenarioResult | undefined>(
    (slowest, result) =>
      (result.product?.latency.p99 ?? 0) > (slowest?.product?.latency.p99 ?? -1) ? result : slowest,
    undefined,
  );
  const worstP99 = worst?.product?.latency.p99;
  // The memory target is the product process's; the `-cached` scenarios run on a second one.
  const uncached = results.filter((result) => result.product && !result.name.endsWith('-cached'));
  const peakRss = Math.max(0, ...uncached.map((result) => result.product?.peakRssBytes ?? 0));
  const floorRss = (kind: string, names: string[]) => {
    const peak = Math.max(
      0,
      ...results.filter((r) => names.includes(r.name)).map((r) => r.floor?.peakRssBytes ?? 0),
    );
    return peak > 0 ? [`${kind} floor ${(peak / MB).toFixed(0)} MB`] : [];
  };
  const floors = [
    ...floorRss('GraphQL', [
      'graphql-pet',
      'graphql-pets',
      'graphql-pet-cached',
      'graphql-pets-cached',
    ]),
    ...floorRss('REST', ['rest-pet', 'rest-pets']),
  ];
  const statements = find('graphql-pets')?.statementsPerRequest?.product;
  const orders = find('place-order');
  const ordersPerSec = orders?.product?.reqPerSec.median;
  const oversold = orders?.unaccountedUnits;
  // Keyed ÷ plain per round of alternating runs on one process, not across two scenarios.
  const keyed = find('place-order-keyed')?.productToReference?.median;
  const slowdown = keyed === undefined ? undefined : 1 - keyed;
  return [
    againstFloor('graphql-pet', 'GraphQL pet(id)'),
    againstFloor('rest-pet', 'REST pet by id'),
    againstRaw('graphql-pets', '100-pet nested list', PAGE_AGAINST_RAW),
    againstRaw(
      'graphql-pet-cached',
      'GraphQL pet(id), response cache on',
      CACHED_AGAINST_RAW[database],
    ),
    {
      target: `${label}: product p99 at half load ≤ ${MAX_P99_MS} ms (every read scenario)`,
      measured:
        worstP99 === undefined
          ? 'not measured'
          : `${worstP99.toFixed(2)} ms worst (${worst?.name})`,
      met: worstP99 === undefined ? undefined : worstP99 <= MAX_P99_MS,
    },
    {
      target: `${label}: product RSS ≤ ${MAX_IDLE_RSS_MB} MB idle after its start`,
      measured: idle
        ? `${(idle.idleBytes / MB).toFixed(0)} MB after ${idle.seconds} s (${(idle.afterStartBytes / MB).toFixed(0)} MB at the start)`
        : 'not measured',
      met: idle ? idle.idleBytes <= MAX_IDLE_RSS_MB * MB : undefined,
    },
    {
      target: `${label}: product peak RSS ≤ ${MAX_RSS_MB} MB`,
      measured:
        uncached.length === 0
          ? 'not measured'
          : `${(peakRss / MB).toFixed(0)} MB${floors.length > 0 ? ` (${floors.join(', ')})` : ''}`,
      met: uncached.length === 0 ? undefined : peakRss <= MAX_RSS_MB * MB,
    },
    {
      target: `${label}: 100-pet nested list ≤ 3 SQL statements`,
      measured: statements === undefined ? 'not measured' : String(statements),
      met: statements === undefined ? undefined : statements <= 3,
    },
    {
      target: `${label}: placeOrder ≥ ${MIN_ORDERS_PER_SEC[database].toLocaleString('en-US')}/s`,
      measured:
        ordersPerSec === undefined
          ? 'not measured'
          : `${Math.round(ordersPerSec).toLocaleString('en-US')}/s`,
      met: ordersPerSec === undefined ? undefined : ordersPerSec >= MIN_ORDERS_PER_SEC[database],
    },
    {
      target: `${label}: placeOrder 0 oversold`,
      measured:
        ordersPerSec === undefined
          ? 'not measured'
          : `${oversold ?? '?'} oversold (${Math.round(ordersPerSec).toLocaleString('en-US')}/s)`,
      met: ordersPerSec === undefined ? undefined : oversold === 0,
    },
    {
      target: `${label}: placeOrder with an Idempotency-Key at most ${MAX_KEYED_SLOWDOWN * 100}% slower`,
      measured: slowdown === undefined ? 'not measured' : `${(slowdown * 100).toFixed(0)}% slower`,
      met: slowdown === undefined ? undefined : slowdown <= MAX_KEYED_SLOWDOWN,
    },
  ];
}

export function checkTargets(
  results: readonly ScenarioResult[],
  idle: readonly IdleMemory[],
): TargetCheck[] {
  const databases = [...new Set(results.map((result) => result.database))];
  return databases.flatMap((database) =>
    checkDatabase(
      database,
      results.filter((result) => result.database === database),
      idle.find((memory) => memory.database === database),
    ),
  );
}
