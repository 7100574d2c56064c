/**
 * Counts the instructions a server runs per request, by function, under valgrind's callgrind: a
 * deterministic measure where timings on a shared host vary by more than the differences sought
 * (bench/rounds.md in git history, the twenty-third round). Needs valgrind (Debian's package).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fail, parseCommand, UsageError } from '../src/cli.js';
import { type CallCost, type Callgrind, type FunctionCost, readCallgrind } from './callgrind.js';
import { type BenchDatabase, benchTarget, createFixture, DEFAULT_POSTGRES_URL } from './fixture.js';
import { type HttpRequest, send } from './http.js';
import {
  benchToken,
  type Launcher,
  productEnvironment,
  type ServerProcess,
  startBaseline,
  startFloor,
  startProduct,
} from './processes.js';
import { scenarios } from './scenarios.js';

const ROLES = ['product', 'floor', 'reference', 'baseline'] as const;
type Role = (typeof ROLES)[number];

const usage = `Runs servers under callgrind and prints the instructions a request costs, by group and by
function, with each server after the first compared with the first.

  --scenario <name>   a scenario of npm run bench (default rest-pet)
  --database <name>   sqlite or postgresql (BENCH_POSTGRES_URL, default ${DEFAULT_POSTGRES_URL}; default sqlite)
  --servers <list>    ${ROLES.join(', ')} (default product,floor); run side by side
  --warmup <n>        requests before counting (default 12000: fewer leave code unoptimised)
  --requests <n>      requests counted (default 2000)
  --rows <n>          functions listed (default 30)
  --context <n>       names each function with its n nearest callers (callgrind's
                      --separate-callers): slower, but says which path a cost is on
  --callers <regex>   also lists the JavaScript functions whose calls reached the functions whose
                      names match (through builtins and V8's C++), with what those calls cost`;

const command = { name: 'npx tsx bench/instructions.ts' };
const { values: options } = parseCommand({
  name: command.name,
  synopsis:
    '[--scenario <name>] [--database <name>] [--servers <list>] [--warmup <n>] [--requests <n>]',
  help: usage,
  options: {
    scenario: { type: 'string', default: 'rest-pet' },
    database: { type: 'string', default: 'sqlite' },
    servers: { type: 'string', default: 'product,floor' },
    warmup: { type: 'string', default: '12000' },
    requests: { type: 'string', default: '2000' },
    rows: { type: 'string', default: '30' },
    context: { type: 'string', default: '0' },
    callers: { type: 'string' },
  },
});
const scenario = scenarios.find((candidate) => candidate.name === options.scenario);
if (!scenario) fail(command, new UsageError(`unknown scenario ${options.scenario}`));
const database = options.database as BenchDatabase;
if (database !== 'sqlite' && database !== 'postgresql')
  fail(command, new UsageError(`unknown database ${options.database}`));
const roles = options.servers.split(',').map((role) => role.trim()) as Role[];
const unknownRole = roles.find((role) => !ROLES.includes(role));
if (unknownRole) fail(command, new UsageError(`unknown server ${unknownRole}`));
const [warmup, counted, rows] = [options.warmup, options.requests, options.rows].map(Number) as [
  number,
  number,
  number,
];

const progress = (message: string) => process.stderr.write(`${message}\n`);
const CONNECTIONS = 10;

/** Sends `total` requests, `CONNECTIONS` at a time, cycling through `requests`; any non-2xx fails. */
async function sendAll(url: string, requests: readonly HttpRequest[], total: number) {
  let next = 0;
  const connection = async () => {
    while (next < total) {
      const request = requests[next++ % requests.length] as HttpRequest;
      const response = await send(url, request);
      if (response.status >= 300)
        throw new Error(`${request.path}: ${response.status} ${response.body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
}

const dir = await mkdtemp(join(tmpdir(), 'petstore-instructions-'));
const secret = randomBytes(32).toString('hex');
const token = await benchToken(secret);
const fixture = await createFixture({ target: benchTarget(database, dir), pets: 10_000 });

/** Runs one server under callgrind: warmed up, then counted; answers its functions' costs. */
async function count(role: Role): Promise<Callgrind> {
  const launcher: Launcher = {
    command: 'valgrind',
    args: [
      '--tool=callgrind',
      // V8 writes and rewrites code in memory: valgrind must see each change.
      '--smc-check=all-non-file',
      '--separate-threads=yes',
      `--separate-callers=${Number(options.context)}`,
      `--callgrind-out-file=${join(dir, `${role}.%p`)}`,
    ],
    // The map names V8's code; the log it also writes goes with the dumps, not into the project.
    nodeFlags: [
      '--perf-basic-prof',
      '--no-logfile-per-isolate',
      `--logfile=${join(dir, 'v8.log')}`,
    ],
  };
  const env = productEnvironment(fixture.url, secret);
  const reference = scenario?.reference;
  const floorKind = role === 'reference' ? reference?.floor : scenario?.floor;
  let server: ServerProcess;
  if (role === 'baseline') server = await startBaseline(fixture.url, launcher);
  else if (role === 'product' || (role === 'reference' && !floorKind))
    server = await startProduct(env, launcher);
  else if (floorKind) server = await startFloor(floorKind, env, launcher);
  else throw new UsageError(`${options.scenario} has no ${role}`);
  const requests =
    role === 'reference' && reference
      ? reference.requests(fixture, token)
      : (scenario?.requests(fixture, token) ?? []);
  try {
    progress(`${role}: ${warmup} requests to warm up…`);
    await sendAll(server.url, requests, warmup);
    execFileSync('callgrind_control', ['--zero', String(server.pid)]);
    progress(`${role}: ${counted} requests counted…`);
    await sendAll(server.url, requests, counted);
    execFileSync('callgrind_control', ['--dump', String(server.pid)]);
  } finally {
    await server.stop();
  }
  // The dump of the main thread (thread 1) after the zeroing: the counted requests only.
  const dump = join(dir, `${role}.${server.pid}.1-01`);
  if (!existsSync(dump)) throw new Error(`no callgrind dump of ${role} in ${dir}`);
  // V8 writes its map where perf looks for it, outside the run's directory: removed once read.
  const perfMap = `/tmp/perf-${server.pid}.map`;
  try {
    return readCallgrind(dump, perfMap);
  } finally {
    await rm(perfMap, { force: true });
  }
}

/** Instructions a request, summed by `key`. */
function sum(costs: readonly FunctionCost[], key: (cost: FunctionCost) => string) {
  const sums = new Map<string, number>();
  for (const cost of costs)
    sums.set(key(cost), (sums.get(key(cost)) ?? 0) + cost.instructions / counted);
  return sums;
}

const format = (n: number) => Math.round(n).toLocaleString('en-US').padStart(10);

/** A table of per-request instructions: each server's, and each later one's minus the first's. */
function table(title: string, sums: readonly Map<string, number>[], limit: number) {
  const keys = [...new Set(sums.flatMap((map) => [...map.keys()]))];
  const first = sums[0] as Map<string, number>;
  const weight = (key: string) =>
    Math.max(
      ...sums.map((map, at) => Math.abs((map.get(key) ?? 0) - (at ? (first.get(key) ?? 0) : 0))),
    );
  console.log(`\n${title}\n${roles.map((role) => role.padStart(10)).join(' ')}`);
  for (const key of keys.sort((a, b) => weight(b) - weight(a)).slice(0, limit))
    console.log(`${sums.map((map) => format(map.get(key) ?? 0)).join(' ')}  ${key.slice(0, 140)}`);
}

/**
 * The cost of calls to the functions matching `pattern`, by the nearest JavaScript function above
 * them: a call from a builtin or from V8's C++ is charged to that function's own callers, in
 * proportion to what each of their calls cost.
 */
function javaScriptCallers(calls: readonly CallCost[], pattern: RegExp): Map<string, number> {
  const into = new Map<string, CallCost[]>();
  for (const call of calls) {
    const edges = into.get(call.callee) ?? [];
    edges.push(call);
    into.set(call.callee, edges);
  }
  const charged = new Map<string, number>();
  const charge = (callee: string, instructions: number, depth: number) => {
    const edges = into.get(callee) ?? [];
    const total = edges.reduce((all, edge) => all + edge.instructions, 0);
    for (const edge of edges) {
      const share = total > 0 ? (instructions * edge.instructions) / total : 0;
      if (edge.caller.startsWith('JS:') || depth === 0 || edge.caller === callee)
        charged.set(edge.caller, (charged.get(edge.caller) ?? 0) + share);
      else charge(edge.caller, share, depth - 1);
    }
  };
  for (const callee of into.keys()) {
    if (!pattern.test(callee)) continue;
    const total = (into.get(callee) ?? []).reduce((all, edge) => all + edge.instructions, 0);
    charge(callee, total, 8);
  }
  return charged;
}

try {
  const results = await Promise.all(roles.map(count));
  const functions = results.map((result) => result.functions);
  const totals = functions.map(
    (costs) => costs.reduce((all, cost) => all + cost.instructions, 0) / counted,
  );
  console.log(
    `${options.scenario} on ${database}, ${counted} requests after ${warmup}: instructions a request`,
  );
  console.log(roles.map((role, at) => `${role} ${format(totals[at] as number).trim()}`).join(', '));
  table(
    'by group',
    functions.map((costs) => sum(costs, (cost) => cost.group)),
    100,
  );
  table(
    'by function (self)',
    functions.map((costs) => sum(costs, (cost) => cost.name)),
    rows,
  );
  if (options.callers) {
    const pattern = new RegExp(options.callers);
    const callers = results.map(
      ({ calls }) =>
        new Map(
          [...javaScriptCallers(calls, pattern)].map(([name, total]) => [name, total / counted]),
        ),
    );
    table(`JavaScript reaching /${options.callers}/ (the calls' inclusive cost)`, callers, rows);
  }
} finally {
  await fixture.drop();
  await rm(dir, { recursive: true, force: true });
}
