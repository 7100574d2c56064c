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
const AGAINST_FLOOR = { 'graphql-pet': 0.8, 'graphql-pets': 0.9 };
/**
 * A response-cache hit against the raw baseline: SQLite's raw server needs so little CPU a request
 * (no network round trip to a database) that a hit, which still writes the access line and the
 * metrics, can reach half of it.
 */
const CACHED_AGAINST_RAW: Record<BenchDatabase, number> = { sqlite: 0.5, postgresql: 0.8 };
/** The product's p99 at half load against its floor's, read by read. */
const MAX_P99_TO_FLOOR = 1.2;
const MAX_RSS_MB = 250;
const MAX_IDLE_RSS_MB = 170;
/** placeOrder answered per second (with a token, 10 connections). */
const MIN_ORDERS_PER_SEC: Record<BenchDatabase, number> = { sqlite: 1000, postgresql: 500 };
/**
 * The statements an Idempotency-Key adds to an order (its claim and its record): counted on both
 * databases, bounded where a statement is not a round trip.
 */
const MAX_KEYED_EXTRA_STATEMENTS: Partial<Record<BenchDatabase, number>> = { sqlite: 2 };

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
  // Every read with a floor: the `-cached` scenarios' second product process is still the product.
  const p99ToFloor = (result: ScenarioResult) =>
    result.product && result.floor ? result.product.latency.p99 / result.floor.latency.p99 : 0;
  const reads = results.filter(
    (result) => p99ToFloor(result) > 0 && !result.name.startsWith('place-'),
  );
  const worst = reads.reduce<ScenarioResult | undefined>(
    (slowest, result) => (!slowest || p99ToFloor(result) > p99ToFloor(slowest) ? result : slowest),
    undefined,
  );
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
  const keyedStatements = find('place-order-keyed')?.statementsPerRequest?.product;
  const plainStatements = orders?.statementsPerRequest?.product;
  const keyedExtra =
    keyedStatements === undefined || plainStatements === undefined
      ? undefined
      : keyedStatements - plainStatements;
  const maxKeyedExtra = MAX_KEYED_EXTRA_STATEMENTS[database];
  return [
    againstFloor('graphql-pet', 'GraphQL pet(id)'),
    againstFloor('graphql-pets', '100-pet nested list'),
    againstRaw(
      'graphql-pet-cached',
      'GraphQL pet(id), response cache on',
      CACHED_AGAINST_RAW[database],
    ),
    {
      target: `${label}: product p99 at half load ≤ ${MAX_P99_TO_FLOOR.toFixed(1)}× the floor's (every read)`,
      measured: worst?.product
        ? `${p99ToFloor(worst).toFixed(2)}× worst (${worst.name}: ${worst.product.latency.p99.toFixed(2)} ms)`
        : 'not measured',
      met: worst ? p99ToFloor(worst) <= MAX_P99_TO_FLOOR : undefined,
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
      target: `${label}: statements an Idempotency-Key adds to placeOrder${maxKeyedExtra === undefined ? ' (counted)' : ` ≤ ${maxKeyedExtra}`}`,
      measured:
        keyedExtra === undefined
          ? 'not measured'
          : `+${keyedExtra} (${keyedStatements} against ${plainStatements})`,
      met:
        keyedExtra === undefined
          ? undefined
          : maxKeyedExtra === undefined || keyedExtra <= maxKeyedExtra,
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
