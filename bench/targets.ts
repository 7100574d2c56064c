import type { ScenarioResult } from './report.js';

/** Issue 6's targets, checked against one run. */
export interface TargetCheck {
  target: string;
  measured: string;
  /** Undefined when the scenario could not be measured in this build. */
  met: boolean | undefined;
}

const MB = 1024 * 1024;

export function checkTargets(results: readonly ScenarioResult[]): TargetCheck[] {
  const find = (name: string) => results.find((result) => result.name === name);
  const ratio = (name: string, minimum: number, label: string): TargetCheck => {
    const value = find(name)?.ratio?.median;
    return {
      target: `${label} ≥ ${minimum.toFixed(2)}× baseline req/s`,
      measured: value === undefined ? 'not measured' : `${value.toFixed(2)}×`,
      met: value === undefined ? undefined : value >= minimum,
    };
  };
  const measured = results.filter((result) => result.product);
  const statements = find('graphql-pets')?.statementsPerRequest?.product;
  const worstP99 = Math.max(...measured.map((result) => result.product?.latency.p99 ?? 0));
  const peakRss = Math.max(...measured.map((result) => result.product?.peakRssBytes ?? 0));
  return [
    ratio('graphql-pet', 0.3, 'GraphQL pet(id)'),
    ratio('rest-pet', 0.6, 'REST pet by id'),
    ratio('graphql-pets', 0.5, '100-pet nested list'),
    ratio('graphql-pet-cached', 0.8, 'GraphQL pet(id), response cache on'),
    {
      target: '100-pet nested list ≤ 3 SQL statements (SQLite)',
      measured: statements === undefined ? 'not measured' : String(statements),
      met: statements === undefined ? undefined : statements <= 3,
    },
    {
      target: 'product p99 at half load ≤ 10 ms (every scenario)',
      measured: `${worstP99.toFixed(2)} ms worst`,
      met: measured.length > 0 ? worstP99 <= 10 : undefined,
    },
    {
      target: 'product peak RSS ≤ 200 MB',
      measured: `${(peakRss / MB).toFixed(0)} MB`,
      met: measured.length > 0 ? peakRss <= 200 * MB : undefined,
    },
  ];
}
