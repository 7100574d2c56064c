import type { BenchDatabase } from './fixture.js';
import type { ScenarioResult } from './report.js';

/** Issue 11's targets, checked against one run, per database. */
export interface TargetCheck {
  target: string;
  measured: string;
  /** Undefined when the scenario could not be measured in this build. */
  met: boolean | undefined;
}

const MB = 1024 * 1024;

/** The minimum ratios to the raw baseline and the minimum placeOrder rate, per database. */
const thresholds: Record<
  BenchDatabase,
  { label: string; petById: number; restById: number; list: number; ordersPerSec: number }
> = {
  sqlite: { label: 'SQLite', petById: 0.3, restById: 0.6, list: 0.5, ordersPerSec: 1000 },
  postgresql: { label: 'PostgreSQL', petById: 0.5, restById: 0.6, list: 0.5, ordersPerSec: 500 },
};

function checkDatabase(database: BenchDatabase, results: readonly ScenarioResult[]) {
  const { label, ...minimum } = thresholds[database];
  const find = (name: string) => results.find((result) => result.name === name);
  const ratio = (name: string, least: number, what: string): TargetCheck => {
    const value = find(name)?.ratio?.median;
    return {
      target: `${label}: ${what} ≥ ${least.toFixed(2)}× baseline req/s`,
      measured: value === undefined ? 'not measured' : `${value.toFixed(2)}×`,
      met: value === undefined ? undefined : value >= least,
    };
  };
  // The `-cached` scenarios run on a second process that holds the response cache: the latency and
  // memory targets are the uncached product's, like the throughput ones.
  const measured = results.filter((result) => result.product && !result.name.endsWith('-cached'));
  const statements = find('graphql-pets')?.statementsPerRequest?.product;
  const orders = find('place-order');
  const ordersPerSec = orders?.product?.reqPerSec.median;
  const oversold = orders?.unaccountedUnits;
  const worstP99 = Math.max(...measured.map((result) => result.product?.latency.p99 ?? 0));
  const peakRss = Math.max(...measured.map((result) => result.product?.peakRssBytes ?? 0));
  const none = measured.length === 0;
  return [
    ratio('graphql-pet', minimum.petById, 'GraphQL pet(id)'),
    ratio('rest-pet', minimum.restById, 'REST pet by id'),
    ratio('graphql-pets', minimum.list, '100-pet nested list'),
    ratio('graphql-pet-cached', 0.8, 'GraphQL pet(id), response cache on'),
    {
      target: `${label}: 100-pet nested list ≤ 3 SQL statements`,
      measured: statements === undefined ? 'not measured' : String(statements),
      met: statements === undefined ? undefined : statements <= 3,
    },
    {
      target: `${label}: placeOrder ≥ ${minimum.ordersPerSec.toLocaleString('en-US')}/s, 0 oversold`,
      measured:
        ordersPerSec === undefined
          ? 'not measured'
          : `${Math.round(ordersPerSec).toLocaleString('en-US')}/s, ${oversold ?? '?'} oversold`,
      met:
        ordersPerSec === undefined
          ? undefined
          : ordersPerSec >= minimum.ordersPerSec && oversold === 0,
    },
    {
      target: `${label}: product p99 at half load ≤ 10 ms (every uncached scenario)`,
      measured: none ? 'not measured' : `${worstP99.toFixed(2)} ms worst`,
      met: none ? undefined : worstP99 <= 10,
    },
    {
      target: `${label}: product peak RSS ≤ 200 MB`,
      measured: none ? 'not measured' : `${(peakRss / MB).toFixed(0)} MB`,
      met: none ? undefined : peakRss <= 200 * MB,
    },
  ];
}

export function checkTargets(results: readonly ScenarioResult[]): TargetCheck[] {
  const databases = [...new Set(results.map((result) => result.database))];
  return databases.flatMap((database) =>
    checkDatabase(
      database,
      results.filter((result) => result.database === database),
    ),
  );
}
