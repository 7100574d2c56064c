/**
 * `npm run bench:usage`: what counting usage (src/usage/) costs a GraphQL `pet(id)` and a page of
 * `pets(first: 100)` (bench/README.md, "Usage counting"). Two measures in one run, on a SQLite
 * bench database:
 * 1. the requests, in process (the app's fetch handler, no sockets), each naming its client, with
 *    the counting off (USAGE_BUFFER_ENTRIES=0) and on (the default: a tally in memory, written every
 *    10 s), in alternating rounds;
 * 2. what the counting does for one such request, alone, many times: the client's name from its
 *    headers, the document's coordinates (looked up: worked out once per document), its variables'
 *    enum values and input fields, the tally, and the warnings' lookup (which every operation pays).
 *    Compared with the time of the whole request in (1), that is the fraction it costs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'graphql';
import { type App, createApp } from '../src/app.js';
import { parseCommand } from '../src/cli.js';
import { loadConfig } from '../src/config.js';
import { schemaUsage, variableCoordinates } from '../src/graphql/plan/index.js';
import { schema } from '../src/graphql/schema/index.js';
import { ClientNames } from '../src/observability/client-name.js';
import { createMetrics } from '../src/observability/metrics.js';
import { UsageRecorder } from '../src/usage/recorder.js';
import { warningsOf } from '../src/warnings/graphql.js';
import { cursorOf, petById, petsPage } from './documents.js';
import { createFixture } from './fixture.js';

parseCommand({
  name: 'npm run bench:usage',
  synopsis: '',
  help: `Measures what counting usage (src/usage/) costs a GraphQL pet(id) and a page of pets(first: 100),
in process on a SQLite bench database: counting off and on in alternating rounds, and the counting
alone (bench/README.md, "Usage counting").`,
});

// Many short rounds, alternating: a loaded machine's bursts then slow both variants alike.
const ROUNDS = 30;
const MICRO = 200_000;

const dir = await mkdtemp(join(tmpdir(), 'petstore-usage-bench-'));
const fixture = await createFixture({
  target: { database: 'sqlite', file: join(dir, 'bench.db') },
  pets: 2000,
});

const base = {
  DATABASE_URL: fixture.url,
  SEED: 'false',
  LOG_LEVEL: 'silent',
  NODE_ENV: 'production',
  AUTH_JWT_SECRET: 'usage-bench-secret-0123456789abcdef',
  RATE_LIMIT_PER_MINUTE: '0',
  RATE_LIMIT_COST_PER_MINUTE: '0',
  // Every request runs its operation (and is counted when it does).
  RESPONSE_CACHE_TTL_MS: '0',
};
const variants: { name: string; app: App }[] = [
  { name: 'usage off', app: await createApp(loadConfig({ ...base, USAGE_BUFFER_ENTRIES: '0' })) },
  { name: 'usage on', app: await createApp(loadConfig(base)) },
];

const client = { 'graphql-client-name': 'bench-web', 'graphql-client-version': '1.0.0' };
const ids = fixture.readIds;

const scenarios = [
  {
    name: 'pet(id)',
    perRound: 250,
    request: (i: number) => ({ query: petById, variables: { id: String(ids[i % ids.length]) } }),
  },
  {
    name: 'pets(first: 100)',
    perRound: 40,
    request: (i: number) => ({
      query: petsPage,
      variables: { after: cursorOf(ids[(i * 7) % ids.length] as number) },
    }),
  },
];

/** Microseconds per request for a round of requests sent one after another. */
async function round(app: App, scenario: (typeof scenarios)[number], offset: number) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < scenario.perRound; i++) {
    const response = await app.fetch(
      new Request('http://bench.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...client },
        body: JSON.stringify(scenario.request(offset + i)),
      }),
    );
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    await response.text();
  }
  return Number(process.hrtime.bigint() - started) / 1000 / scenario.perRound;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** What the GraphQL edge's counting does for one operation of `query`, alone, per call (µs). */
async function countingAlone(query: string, variables: (i: number) => Record<string, unknown>) {
  const document = parse(query);
  const names = new ClientNames({
    maxNames: 50,
    maxVersionsPerName: 20,
    listed: [],
    anonymousNames: 10,
  });
  const recorder = new UsageRecorder({
    database: variants[0]?.app.database as App['database'],
    logger: variants[0]?.app.logger as App['logger'],
    metrics: createMetrics(variants[0]?.app.database as App['database']),
    bufferEntries: 10_000,
    // Never written during the measure: only the tally is timed.
    flushIntervalMs: 3_600_000,
    retentionDays: 30,
  });
  const headers = new Headers(client);
  const started = process.hrtime.bigint();
  for (let i = 0; i < MICRO; i++) {
    const named = names.of((name) => headers.get(name), false);
    const usage = schemaUsage(schema, document, undefined);
    recorder.record('graphql', usage.coordinates, named);
    const more = usage.variables.length > 0 ? variableCoordinates(usage, variables(i)) : [];
    if (more.length > 0) recorder.recordEach('graphql', more, named);
    // The warnings' lookup, which every operation pays whether usage is counted or not.
    if (warningsOf(schema, usage).length > 0) throw new Error('no warning expected');
  }
  const us = Number(process.hrtime.bigint() - started) / 1000 / MICRO;
  await recorder.close();
  return us;
}

for (const scenario of scenarios) {
  // Warm-up: the compiled query, the parse cache, the JIT.
  for (const { app } of variants) await round(app, scenario, 0);
  const times = new Map<string, number[]>(variants.map(({ name }) => [name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate the order so that neither variant always runs on a warmer process.
    const order = r % 2 === 0 ? variants : [...variants].reverse();
    for (const { name, app } of order)
      times.get(name)?.push(await round(app, scenario, r * scenario.perRound));
  }
  const off = median(times.get('usage off') ?? []);
  console.log(
    `GraphQL ${scenario.name}, in process, ${ROUNDS} rounds of ${scenario.perRound} requests (median µs/request):`,
  );
  for (const { name } of variants) {
    const value = median(times.get(name) ?? []);
    const delta = ((value - off) / off) * 100;
    console.log(
      `  ${name.padEnd(10)} ${value.toFixed(1).padStart(8)} µs${name === 'usage off' ? '' : `  (${delta >= 0 ? '+' : ''}${delta.toFixed(1)}%)`}`,
    );
  }
  const [query, variables] =
    scenario.name === 'pet(id)'
      ? [petById, (i: number) => ({ id: String(i) })]
      : [petsPage, (i: number) => ({ after: cursorOf(i + 1) })];
  const alone = await countingAlone(query, variables);
  console.log(
    `  counting alone (client name, coordinates, variables, tally, warnings): ${alone.toFixed(2)} µs = ${((alone / off) * 100).toFixed(2)}% of the request`,
  );
}

for (const { app } of variants) await app.close();
await fixture.drop();
await rm(dir, { recursive: true, force: true });
