/**
 * `npm run bench:cost`: what demand control costs a GraphQL `pet(id)` (bench/README.md, "Demand
 * control"). Two measures in one run, on a SQLite bench database:
 * 1. the request, in process (the app's fetch handler, no sockets), with the cost budget off
 *    (RATE_LIMIT_COST_PER_MINUTE=0) and on (in memory), in alternating rounds: what the budget
 *    (charge, refund, the RateLimit fields) adds;
 * 2. everything demand control does for such a request, alone, many times: the estimate from the
 *    directives, the resolved cost, the report, and a charge on the in-memory bucket. Compared
 *    with the time of the whole request in (1), that is the fraction of `pet(id)` it costs.
 * With BENCH_REDIS_URL the budget is also measured in Redis (one Lua call a request).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'graphql';
import { type App, createApp } from '../src/app.js';
import { parseCommand } from '../src/cli.js';
import { loadConfig } from '../src/config.js';
import { operationEstimate, resolvedCost } from '../src/graphql/plan/index.js';
import { schema } from '../src/graphql/schema/index.js';
import { CostBudget, MemoryCostBucketStore } from '../src/rate-limit/cost-budget.js';
import { petById } from './documents.js';
import { createFixture } from './fixture.js';

parseCommand({
  name: 'npm run bench:cost',
  synopsis: '',
  help: `Measures what demand control costs a GraphQL pet(id), in process on a SQLite bench database: the
request with the cost budget off and on, and the estimate, report and charge alone
(bench/README.md, "Demand control"). With BENCH_REDIS_URL the budget is measured in Redis too.`,
});

const ROUNDS = 8;
const PER_ROUND = 1500;
const MICRO = 100_000;

const dir = await mkdtemp(join(tmpdir(), 'petstore-cost-bench-'));
const fixture = await createFixture({
  target: { database: 'sqlite', file: join(dir, 'bench.db') },
  pets: 2000,
});

const base = {
  DATABASE_URL: fixture.url,
  SEED: 'false',
  LOG_LEVEL: 'silent',
  NODE_ENV: 'production',
  AUTH_JWT_SECRET: 'cost-bench-secret-0123456789abcdef',
  RATE_LIMIT_PER_MINUTE: '0',
  RESPONSE_CACHE_TTL_MS: '0',
};
const variants: { name: string; app: App }[] = [
  {
    name: 'budget off',
    app: await createApp(loadConfig({ ...base, RATE_LIMIT_COST_PER_MINUTE: '0' })),
  },
  // Far more than one client's worth of traffic: never refused, always charged.
  {
    name: 'budget on (memory)',
    app: await createApp(loadConfig({ ...base, RATE_LIMIT_COST_PER_MINUTE: '1000000000' })),
  },
];
if (process.env.BENCH_REDIS_URL) {
  variants.push({
    name: 'budget on (Redis)',
    app: await createApp(
      loadConfig({
        ...base,
        RATE_LIMIT_COST_PER_MINUTE: '1000000000',
        REDIS_URL: process.env.BENCH_REDIS_URL,
      }),
    ),
  });
}

const request = (id: number) =>
  new Request('http://bench.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: petById, variables: { id: String(id) } }),
  });

/** Microseconds per request for `count` requests sent one after another. */
async function round(app: App, offset: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < PER_ROUND; i++) {
    const id = fixture.readIds[(offset + i) % fixture.readIds.length] as number;
    const response = await app.fetch(request(id));
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    await response.text();
  }
  return Number(process.hrtime.bigint() - started) / 1000 / PER_ROUND;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

// Warm-up: the compiled query, the parse cache, the JIT.
for (const { app } of variants) await round(app, 0);
const times = new Map<string, number[]>(variants.map(({ name }) => [name, []]));
for (let r = 0; r < ROUNDS; r++) {
  // Alternate the order so that neither variant always runs on a warmer process.
  const order = r % 2 === 0 ? variants : [...variants].reverse();
  for (const { name, app } of order) times.get(name)?.push(await round(app, r * PER_ROUND));
}

// Everything demand control does for one pet(id), alone.
const document = parse(petById);
const data = { pet: { id: '1', name: 'Rex', categoryId: '1', status: 'available' } };
const budget = new CostBudget(1_000_000_000, new MemoryCostBucketStore(100_000));
let sink = 0;
const started = process.hrtime.bigint();
for (let i = 0; i < MICRO; i++) {
  const variables = { id: String(i) };
  const requested = operationEstimate({ schema, document, variables }).cost;
  const account = budget.account(`sub:client-${i % 100}`);
  const charge = await account.charge(requested);
  const actual = resolvedCost({ schema, document, data });
  if (requested > actual) await account.refund(requested - actual);
  const report = {
    requestedQueryCost: requested,
    actualQueryCost: actual,
    throttleStatus: charge.status,
  };
  sink += JSON.stringify(report).length;
}
const microUs = Number(process.hrtime.bigint() - started) / 1000 / MICRO;

const off = median(times.get('budget off') ?? []);
console.log(
  `GraphQL pet(id), in process, ${ROUNDS} rounds of ${PER_ROUND} requests (median µs/request):`,
);
for (const { name } of variants) {
  const value = median(times.get(name) ?? []);
  const delta = ((value - off) / off) * 100;
  console.log(
    `  ${name.padEnd(20)} ${value.toFixed(1).padStart(7)} µs${name === 'budget off' ? '' : `  (${delta >= 0 ? '+' : ''}${delta.toFixed(1)}%)`}`,
  );
}
console.log(
  `Demand control alone (estimate, resolved cost, report, in-memory charge): ${microUs.toFixed(2)} µs a request = ${((microUs / off) * 100).toFixed(2)}% of pet(id) in process (${sink > 0 ? 'checked' : ''})`,
);

for (const { app } of variants) await app.close();
await fixture.drop();
await rm(dir, { recursive: true, force: true });
