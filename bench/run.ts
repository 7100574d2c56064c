import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mintToken } from '../src/auth/tokens.js';
import { scopes } from '../src/domain/authorization.js';
import { createFixture } from './fixture.js';
import { fullPlan, measure, quickPlan } from './measure.js';
import {
  type ServerProcess,
  startBaseline,
  startLoadGenerator,
  startProduct,
} from './processes.js';
import { formatReport, type Report, type ScenarioResult, writeReport } from './report.js';
import { scenarios } from './scenarios.js';
import { checkTargets } from './targets.js';
import { verifyScenario } from './verify.js';

const usage = `npm run bench [-- options]
  --quick          short runs (about a minute in all)
  --pets <n>       pets in the bench database (default 10000)
  --only <names>   comma-separated scenarios: ${scenarios.map((s) => s.name).join(', ')}
  --profile        write a CPU profile of the product to bench/results/profiles/`;

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    pets: { type: 'string', default: '10000' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (options.help) {
  console.log(usage);
  process.exit(0);
}
const pets = Number(options.pets);
if (!Number.isInteger(pets) || pets < 200) throw new Error('--pets must be an integer ≥ 200');
const only = options.only?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !scenarios.some((s) => s.name === name)) ?? [];
if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}\n${usage}`);
const selected = scenarios.filter((s) => !only || only.includes(s.name));
const plan = options.quick ? quickPlan : fullPlan;
const resultsDir = fileURLToPath(new URL('./results', import.meta.url));

const progress = (message: string) => process.stderr.write(`${message}\n`);

/** A token with every scope (the product's own minting), for the operations that need one. */
function benchToken(secret: string): Promise<string> {
  return mintToken(secret, { scopes, subject: 'bench', expiresIn: 2 * 3600 });
}

const startedAt = new Date().toISOString();
const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-'));
const children: { stop(): unknown }[] = [];
try {
  progress(`creating the bench database: ${pets} pets…`);
  const fixture = await createFixture({ file: join(dir, 'bench.db'), pets });
  const secret = randomBytes(32).toString('hex');
  const token = await benchToken(secret);

  progress('starting the product, the baseline and the load generator…');
  const productEnv = {
    DATABASE_URL: `file:${fixture.file}`,
    SEED: 'false',
    NODE_ENV: 'production',
    AUTH_JWT_SECRET: secret,
    // One load generator is one client, far over any per-client budget.
    RATE_LIMIT_PER_MINUTE: '0',
    // Warnings and errors only: the run measures the gateway, not log shipping.
    LOG_LEVEL: 'warn',
    // The headline scenarios measure uncached work; the `-cached` ones use a second product.
    RESPONSE_CACHE_TTL_MS: '0',
  };
  const profileArgs = ['--cpu-prof', `--cpu-prof-dir=${join(resultsDir, 'profiles')}`];
  const [product, baseline] = await Promise.all([
    startProduct(productEnv, { execArgv: options.profile ? profileArgs : [] }),
    startBaseline(fixture.file),
  ]);
  children.push(product, baseline);
  const cachedProduct = selected.some((scenario) => scenario.cached)
    ? await startProduct({ ...productEnv, RESPONSE_CACHE_TTL_MS: '600000' })
    : undefined;
  if (cachedProduct) children.push(cachedProduct);
  const load = startLoadGenerator();
  children.push(load);

  const results: ScenarioResult[] = [];
  for (const scenario of selected) {
    const requests = scenario.requests(fixture, token);
    const result: ScenarioResult = {
      name: scenario.name,
      title: scenario.title,
      distinctRequests: new Set(requests.map((r) => `${r.path} ${r.body ?? ''}`)).size,
    };
    results.push(result);
    const against: ServerProcess | undefined = scenario.baseline ? baseline : undefined;
    const server = (scenario.cached ? cachedProduct : undefined) ?? product;
    progress(`${scenario.name}: checking responses and counting SQL statements…`);
    const verified = await verifyScenario(
      scenario,
      requests,
      fixture,
      server,
      against,
      plan.checkRequests,
    );
    result.statementsPerRequest = verified.statementsPerRequest;
    progress(`${scenario.name}: measuring…`);
    Object.assign(result, await measure(load, plan, requests, server, against));
  }

  const report: Report = {
    mode: options.quick ? 'quick' : 'full',
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: { node: process.versions.node, cpus: cpus().length, loadAverage: loadavg() },
    pets,
    plan,
    scenarios: results,
    targets: checkTargets(results),
  };
  console.log(formatReport(report));
  progress(`\nJSON: ${await writeReport(report, resultsDir)}`);
} finally {
  await Promise.all(children.map((child) => child.stop()));
  await rm(dir, { recursive: true, force: true });
}
