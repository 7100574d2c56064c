import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { fail, parseCommand, UsageError } from '../src/cli.js';
import { type DeferredResult, formatDeferred, measureDeferred } from './deferred.js';
import {
  type BenchDatabase,
  benchTarget,
  createFixture,
  DEFAULT_POSTGRES_URL,
  type Fixture,
} from './fixture.js';
import { fullPlan, measure, quickPlan } from './measure.js';
import {
  benchToken,
  type FloorKind,
  productEnvironment,
  type ServerProcess,
  startBaseline,
  startFloor,
  startLoadGenerator,
  startProduct,
  startSseFloor,
} from './processes.js';
import {
  formatReport,
  type IdleMemory,
  type Report,
  type ScenarioResult,
  writeReport,
} from './report.js';
import { type Scenario, scenarios } from './scenarios.js';
import { formatSubscribers, measureSubscribers, type SubscribersResult } from './subscribers.js';
import { checkTargets } from './targets.js';
import { formatVarnish, measureVarnish, type VarnishResult } from './varnish.js';
import { verifyScenario } from './verify.js';

/**
 * The scenarios measured on their own terms (no baseline, no autocannon): the subscribers, SSE
 * streams (beside the bare node:http floor writing the same bytes) and graphql-ws sockets; the
 * 100-pet page with its stock deferred, time to its first part (bench/deferred.ts).
 */
const SUBSCRIBERS = ['sse-subscribers', 'ws-subscribers'];
const DEFERRED = 'graphql-pets-deferred';
/** Reads through Varnish against the origin alone, and the purge lag (bench/varnish.ts). */
const VARNISH = 'through-varnish';
const ownTerms = [...SUBSCRIBERS, DEFERRED, VARNISH];
/**
 * How long the product stays idle after its start before its resident memory is read: V8's memory
 * reducer gives back what the start grew only once the process has been idle a few seconds.
 */
const IDLE_SECONDS = 30;

const usage = `Measures the gateway under load against a raw baseline and the framework's floor, on a bench
database of its own (bench/README.md), and writes the report to bench/results/.

  --quick          short runs (about a minute in all)
  --pets <n>       pets in the bench database (default 10000)
  --databases <l>  sqlite,postgresql (default both); PostgreSQL at BENCH_POSTGRES_URL
                   (default ${DEFAULT_POSTGRES_URL}), in a schema of the run's own
  --only <names>   comma-separated scenarios: ${[...scenarios.map((s) => s.name), ...ownTerms].join(', ')}
  --subscribers <n>  subscribers of the subscribers scenarios (default 1000); at 10,000 the
                   bench process needs an open-file limit above that (ulimit -n)
  --profile        write a CPU profile of every saturation run, a file per database, scenario,
                   role (product, floor, baseline, reference) and round, to
                   bench/results/profiles/<the run's start>/ (bench/profile.ts reads them)`;

const { values: options } = parseCommand({
  name: 'npm run bench',
  synopsis:
    '[--quick] [--pets <n>] [--databases <list>] [--only <names>] [--subscribers <n>] [--profile]',
  help: usage,
  options: {
    quick: { type: 'boolean', default: false },
    pets: { type: 'string', default: '10000' },
    only: { type: 'string' },
    databases: { type: 'string', default: 'sqlite,postgresql' },
    profile: { type: 'boolean', default: false },
    subscribers: { type: 'string', default: '1000' },
  },
});
const pets = Number(options.pets);
const bench = { name: 'npm run bench' };
if (!Number.isInteger(pets) || pets < 200)
  fail(bench, new UsageError('--pets must be an integer ≥ 200'));
const subscriberCount = Number(options.subscribers);
if (!Number.isInteger(subscriberCount) || subscriberCount < 1)
  fail(bench, new UsageError('--subscribers must be a positive integer'));
const only = options.only?.split(',').map((name) => name.trim());
const unknown =
  only?.filter((name) => !ownTerms.includes(name) && !scenarios.some((s) => s.name === name)) ?? [];
if (unknown.length > 0) fail(bench, new UsageError(`unknown scenario ${unknown.join(', ')}`));
const selected = scenarios.filter((s) => !only || only.includes(s.name));
const databases = options.databases.split(',').map((name) => name.trim());
for (const name of databases) {
  if (name !== 'sqlite' && name !== 'postgresql')
    fail(bench, new UsageError(`unknown database ${name}`));
}
const plan = options.quick ? quickPlan : fullPlan;
const resultsDir = fileURLToPath(new URL('./results', import.meta.url));

const progress = (message: string) => process.stderr.write(`${message}\n`);

const startedAt = new Date().toISOString();
const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-'));
const secret = randomBytes(32).toString('hex');
const token = await benchToken(secret);
const profilesDir = join(resultsDir, 'profiles', startedAt.replace(/[:.]/g, '-'));
if (options.profile) await mkdir(profilesDir, { recursive: true });
const load = startLoadGenerator();
const results: ScenarioResult[] = [];
const idle: IdleMemory[] = [];
const subscribers: SubscribersResult[] = [];
const deferred: DeferredResult[] = [];
const throughVarnish: VarnishResult[] = [];
try {
  for (const database of databases as BenchDatabase[]) {
    progress(`${database}: creating the bench database: ${pets} pets…`);
    const fixture = await createFixture({ target: benchTarget(database, dir), pets });
    try {
      results.push(...(await benchDatabase(fixture)));
    } finally {
      await fixture.drop();
    }
  }
  const report: Report = {
    mode: options.quick ? 'quick' : 'full',
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: { node: process.versions.node, cpus: cpus().length, loadAverage: loadavg() },
    pets,
    plan,
    scenarios: results,
    idle,
    targets: checkTargets(results, idle),
    subscribers,
    deferred,
  };
  console.log(formatReport(report));
  if (subscribers.length > 0) console.log(`\n${formatSubscribers(subscribers)}`);
  if (deferred.length > 0) console.log(`\n${formatDeferred(deferred)}`);
  if (throughVarnish.length > 0) console.log(`\n${formatVarnish(throughVarnish)}`);
  progress(`\nJSON: ${await writeReport(report, resultsDir)}`);
  if (options.profile) progress(`CPU profiles: ${profilesDir}`);
} finally {
  load.stop();
  await rm(dir, { recursive: true, force: true });
}

/** The selected scenarios on one database: its own product, floor and baseline processes. */
async function benchDatabase(fixture: Fixture): Promise<ScenarioResult[]> {
  const { database } = fixture;
  const floorKinds = [...new Set(selected.flatMap((s) => (s.floor ? [s.floor] : [])))];
  const floorNames = floorKinds.map((kind) => `the ${kind} floor, `).join('');
  progress(`${database}: starting the product, ${floorNames}the baseline…`);
  const productEnv = productEnvironment(fixture.url, secret);
  const [product, baseline, ...floorList] = await Promise.all([
    startProduct(productEnv),
    startBaseline(fixture.url),
    // The floors read the same database with the product's configuration.
    ...floorKinds.map((kind) => startFloor(kind, productEnv)),
  ]);
  const floors = new Map<FloorKind, ServerProcess>(
    floorKinds.map((kind, i) => [kind, floorList[i] as ServerProcess]),
  );
  const cachedProduct = selected.some((scenario) => scenario.cached)
    ? await startProduct({ ...productEnv, RESPONSE_CACHE_TTL_MS: '600000' })
    : undefined;
  progress(
    `${database}: the product's resident memory, idle for ${IDLE_SECONDS} s after its start…`,
  );
  const afterStartBytes = (await product.stats()).rss;
  await sleep(IDLE_SECONDS * 1000);
  idle.push({
    database,
    afterStartBytes,
    idleBytes: (await product.stats()).rss,
    seconds: IDLE_SECONDS,
  });
  /** What the scenario's product is also compared with: the product itself, or a floor. */
  const referenceOf = (scenario: Scenario, productServer: ServerProcess) => {
    const reference = scenario.reference;
    const server = reference?.floor ? floors.get(reference.floor) : productServer;
    return reference && server
      ? { server, requests: reference.requests(fixture, token) }
      : undefined;
  };
  const found: ScenarioResult[] = [];
  try {
    for (const scenario of selected) {
      const requests = scenario.requests(fixture, token);
      const result: ScenarioResult = {
        name: scenario.name,
        database,
        title: scenario.title,
        distinctRequests: new Set(requests.map((r) => `${r.path} ${r.body ?? ''}`)).size,
        ...(scenario.reference ? { referenceName: scenario.reference.name } : {}),
      };
      found.push(result);
      const productServer = (scenario.cached ? cachedProduct : undefined) ?? product;
      const servers = {
        product: productServer,
        floor: scenario.floor ? floors.get(scenario.floor) : undefined,
        baseline: scenario.baseline ? baseline : undefined,
        reference: referenceOf(scenario, productServer),
      };
      progress(`${database} ${scenario.name}: checking responses and counting SQL statements…`);
      const verified = await verifyScenario(
        scenario,
        requests,
        fixture,
        servers,
        plan.checkRequests,
      );
      result.statementsPerRequest = verified.statementsPerRequest;
      progress(`${database} ${scenario.name}: measuring…`);
      // `sqlite-rest-pet-floor-2.cpuprofile`: the REST floor's second saturation run of rest-pet.
      const profileFile = options.profile
        ? (role: string, round: number) =>
            join(profilesDir, `${database}-${scenario.name}-${role}-${round + 1}.cpuprofile`)
        : undefined;
      Object.assign(result, await measure(load, plan, requests, servers, profileFile));
      if (scenario.writes) result.unaccountedUnits = await fixture.unaccountedUnits();
    }
    const counted = { subscribers: subscriberCount };
    if (!only || only.includes('sse-subscribers')) {
      progress(`${database} sse-subscribers: ${subscriberCount} SSE streams on the floor…`);
      const floor = await startSseFloor();
      try {
        subscribers.push(await measureSubscribers(floor, fixture, token, 'sse floor', counted));
      } finally {
        await floor.stop();
      }
      progress(`${database} sse-subscribers: ${subscriberCount} SSE streams on the product…`);
      subscribers.push(await measureSubscribers(product, fixture, token, 'sse', counted));
    }
    if (!only || only.includes('ws-subscribers')) {
      // A product of its own: what the SSE streams left on the heap is not the sockets'.
      progress(`${database} ws-subscribers: ${subscriberCount} graphql-ws sockets…`);
      const served = await startProduct(productEnv);
      try {
        subscribers.push(await measureSubscribers(served, fixture, token, 'graphql-ws', counted));
      } finally {
        await served.stop();
      }
    }
    if (!only || only.includes(DEFERRED)) {
      progress(`${database} ${DEFERRED}: the page, plain and deferred, one at a time…`);
      deferred.push(
        await measureDeferred(product, fixture, { requests: options.quick ? 50 : 200 }),
      );
    }
    if (!only || only.includes(VARNISH)) {
      progress(`${database} ${VARNISH}: reads through Varnish and from the origin, then writes…`);
      const seconds = options.quick ? 2 : 5;
      const measured = await measureVarnish(load, productEnv, fixture, token, {
        seconds,
        writes: options.quick ? 10 : 50,
      });
      if (measured) throughVarnish.push(measured);
    }
  } finally {
    await Promise.all([
      product.stop(),
      baseline.stop(),
      cachedProduct?.stop(),
      ...[...floors.values()].map((floor) => floor.stop()),
    ]);
  }
  return found;
}
