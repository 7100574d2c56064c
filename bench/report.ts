import { mkdir, writeFile } from 'node:fs/promises';
import type { DeferredResult } from './deferred.js';
import type { BenchDatabase } from './fixture.js';
import type { Measurement, Plan, ServerFigures } from './measure.js';
import type { Spread } from './stats.js';
import type { SubscribersResult } from './subscribers.js';
import type { TargetCheck } from './targets.js';

export interface ScenarioResult extends Partial<Measurement> {
  name: string;
  database: BenchDatabase;
  title: string;
  /** How many different requests the runs cycle through. */
  distinctRequests: number;
  /** The scenario measured in alternation with this one on the same product, when there is one. */
  referenceName?: string;
  /** Why the scenario was not measured (e.g. the product lacks the endpoint). */
  skipped?: string;
  statementsPerRequest?: { product: number; floor?: number; baseline?: number };
  /** Writes only: units gone from stock that no order accounts for (oversold), after the runs. */
  unaccountedUnits?: number;
}

/** The product's resident memory right after its start, and once idle a while. */
export interface IdleMemory {
  database: BenchDatabase;
  afterStartBytes: number;
  idleBytes: number;
  /** How long it was idle. */
  seconds: number;
}

export interface Report {
  mode: 'quick' | 'full';
  startedAt: string;
  finishedAt: string;
  machine: { node: string; cpus: number; loadAverage: number[] };
  pets: number;
  plan: Plan;
  scenarios: ScenarioResult[];
  /** Per database, before any load. */
  idle: IdleMemory[];
  targets: TargetCheck[];
  /** The SSE subscribers scenario, per database, when it ran. */
  subscribers: SubscribersResult[];
  /** The deferred page, per database, when it ran. */
  deferred: DeferredResult[];
}

const databaseNames: Record<BenchDatabase, string> = {
  sqlite: 'SQLite',
  postgresql: 'PostgreSQL',
};

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '–');
const mb = (bytes: number) => `${integer.format(bytes / 1024 / 1024)} MB`;
const range = (value: Spread, format: (n: number) => string) =>
  `${format(value.median)} (${format(value.min)}–${format(value.max)})`;

const cpu = (figures: ServerFigures | undefined) =>
  figures && Number.isFinite(figures.cpuMicrosPerRequest)
    ? integer.format(figures.cpuMicrosPerRequest)
    : '–';
const times = (value: Spread) => range(value, (n) => `${n.toFixed(2)}×`);

function row(
  server: string,
  figures: ServerFigures,
  ratios: [toBaseline: string, toFloor: string],
  statements: number | undefined,
): string {
  return `| ${[
    server,
    range(figures.reqPerSec, integer.format),
    ...ratios,
    integer.format(figures.latency.achieved),
    ms(figures.latency.p50),
    ms(figures.latency.p99),
    statements === undefined ? '–' : String(Number(statements.toFixed(2))),
    Number.isFinite(figures.statementsUnderLoad) ? figures.statementsUnderLoad.toFixed(2) : '–',
    cpu(figures),
    mb(figures.peakRssBytes),
  ].join(' | ')} |`;
}

function scenarioTable(result: ScenarioResult): string {
  const heading = `### ${databaseNames[result.database]}: ${result.title}\n`;
  if (result.skipped || !result.product) return `${heading}\n${result.skipped ?? 'not measured'}\n`;
  const statements = result.statementsPerRequest;
  const lines = [
    heading,
    `${integer.format(result.distinctRequests)} distinct requests; latency at ${integer.format(result.product.latency.rate)} req/s (half of the slowest server's max).\n`,
    '| server | req/s median (min–max) | ratio to baseline | ratio to floor | req/s at half load | p50 ms | p99 ms | SQL/req | SQL/req under load | CPU µs/req | peak RSS |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    row(
      'product',
      result.product,
      [
        result.ratio ? times(result.ratio) : 'no baseline (absolute)',
        result.productToFloor ? times(result.productToFloor) : '–',
      ],
      statements?.product,
    ),
  ];
  if (result.floor) {
    const toBaseline = result.floorRatio ? times(result.floorRatio) : '–';
    lines.push(row('floor', result.floor, [toBaseline, '1'], statements?.floor));
  }
  if (result.baseline) {
    lines.push(row('baseline', result.baseline, ['1', '–'], statements?.baseline));
  }
  if (result.reference) {
    lines.push(row(result.referenceName ?? 'reference', result.reference, ['–', '–'], undefined));
    if (result.productToReference) {
      lines.push(
        `\nproduct ÷ ${result.referenceName}, runs alternating: ${times(result.productToReference)}.`,
      );
    }
  }
  if (result.unaccountedUnits !== undefined) {
    lines.push(
      `\nStock taken but not ordered (oversold) after the runs: ${result.unaccountedUnits} units.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Per database, every scenario as a ladder: raw (the baseline) → floor (the framework alone, with
 * the product's schema and reads) → product, as median req/s and the three ratios (medians of the
 * per-round ratios).
 */
function ladderTable(database: BenchDatabase, results: readonly ScenarioResult[]): string {
  const cell = (figures: ServerFigures | undefined) =>
    figures ? integer.format(figures.reqPerSec.median) : '–';
  const ratio = (value: Spread | undefined) => (value ? `${value.median.toFixed(2)}×` : '–');
  const p99 = (figures: ServerFigures | undefined) => (figures ? ms(figures.latency.p99) : '–');
  const rss = (figures: ServerFigures | undefined) => (figures ? mb(figures.peakRssBytes) : '–');
  return [
    `### ${databaseNames[database]}: ladder raw → floor → product\n`,
    '| scenario | raw req/s | floor req/s | product req/s | floor ÷ raw | product ÷ raw | product ÷ floor | CPU µs/req raw / floor / product | p99 ms raw / floor / product | peak RSS floor / product |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...results
      .filter((result) => result.product)
      .map(
        (result) =>
          `| ${[
            result.name,
            cell(result.baseline),
            cell(result.floor),
            cell(result.product),
            ratio(result.floorRatio),
            ratio(result.ratio),
            ratio(result.productToFloor),
            [result.baseline, result.floor, result.product].map(cpu).join(' / '),
            [result.baseline, result.floor, result.product].map(p99).join(' / '),
            [result.floor, result.product].map(rss).join(' / '),
          ].join(' | ')} |`,
      ),
  ].join('\n');
}

function targetTable(targets: readonly TargetCheck[]): string {
  const verdict = (met: boolean | undefined) =>
    met === undefined ? 'not measured' : met ? 'met' : 'MISSED';
  return [
    '### Targets\n',
    '| target | measured | |',
    '|---|--:|---|',
    ...targets.map((check) => `| ${check.target} | ${check.measured} | ${verdict(check.met)} |`),
  ].join('\n');
}

/** The report as Markdown tables: one per scenario, the ladder per database, then the targets. */
export function formatReport(report: Report): string {
  const header = `## Benchmark (${report.mode}): ${integer.format(report.pets)} pets, Node ${report.machine.node}, ${report.machine.cpus} CPUs, load average ${report.machine.loadAverage.map((n) => n.toFixed(2)).join(' ')}\n`;
  const databases = [...new Set(report.scenarios.map((result) => result.database))];
  const ladders = databases.map(
    (database) =>
      `${ladderTable(
        database,
        report.scenarios.filter((result) => result.database === database),
      )}\n`,
  );
  return [
    header,
    ...report.scenarios.map(scenarioTable),
    ...ladders,
    targetTable(report.targets),
  ].join('\n');
}

/** Writes the report as JSON under `dir` (one file per run, plus `latest.json`). */
export async function writeReport(report: Report, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const file = `${dir}/bench-${report.startedAt.replace(/[:.]/g, '-')}.json`;
  await writeFile(file, json);
  await writeFile(`${dir}/latest.json`, json);
  return file;
}
