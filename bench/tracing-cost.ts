/**
 * What tracing costs the GraphQL `pet(id)` read: the server's CPU time per request (from
 * /proc/<pid>/stat, so that other load on the machine counts less than in req/s), with tracing off,
 * on with a 10% sampler, and on with every request sampled, in alternating rounds. Spans go to a
 * sink on loopback that answers every export at once.
 *
 *   npm run build && npx tsx bench/tracing-cost.ts [requests per round, default 4000] [rounds, default 3]
 *
 * BEFORE_TRACING=<a checkout built without tracing> adds that server as one more mode, the measure
 * of what the hooks cost with tracing off.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const requests = Number(process.argv[2] ?? 4000);
const rounds = Number(process.argv[3] ?? 3);
const concurrency = 4;

const sink = createServer((request, response) => {
  request.resume().on('end', () => response.writeHead(200).end());
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const modes: Record<string, Record<string, string>> = {
  off: {},
  'on, 10% sampled': {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.1',
  },
  'on, all sampled': { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
};

/** The process's user + system CPU time so far, in microseconds (clock ticks of 10 ms). */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

if (process.env.BEFORE_TRACING) modes['before tracing existed'] = {};

async function start(mode: string, env: Record<string, string>, file: string) {
  const before = mode === 'before tracing existed';
  const child: ChildProcess = spawn(process.execPath, ['dist/server.js'], {
    cwd: before ? (process.env.BEFORE_TRACING as string) : root,
    env: {
      ...process.env,
      DATABASE_URL: `file:${file}`,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      RESPONSE_CACHE_TTL_MS: '0',
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: 'a-bench-secret-of-enough-length-0123456789',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve) => {
    // The console banner (LOG_LEVEL=warn leaves out the log line with the address).
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => {
      const match = /gateway on (http:\/\/\S+)/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
  });
  return { child, url };
}

async function query(url: string, text: string) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: text }),
  });
  return (await response.json()) as { data: Record<string, unknown> };
}

async function load(url: string, ids: string[], count: number) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const id = ids[next++ % ids.length];
      await query(url, `{ pet(id: "${id}") { id name categoryId status } }`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const results = new Map<string, { cpu: number[]; rate: number[] }>();
for (let round = 1; round <= rounds; round++) {
  for (const [mode, env] of Object.entries(modes)) {
    const file = join(tmpdir(), `petstore-tracing-cost-${process.pid}.db`);
    const { child, url } = await start(mode, env, file);
    const page = await query(url, '{ pets(first: 100) { edges { node { id } } } }');
    const edges = (page.data.pets as { edges: { node: { id: string } }[] }).edges;
    const ids = edges.map((edge) => edge.node.id);
    await load(url, ids, requests / 2); // warm-up: compiled queries, JIT, connections
    const pid = child.pid as number;
    const cpuBefore = cpuMicros(pid);
    const started = performance.now();
    await load(url, ids, requests);
    const seconds = (performance.now() - started) / 1000;
    const entry = results.get(mode) ?? { cpu: [], rate: [] };
    entry.cpu.push((cpuMicros(pid) - cpuBefore) / requests);
    entry.rate.push(requests / seconds);
    results.set(mode, entry);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    for (const end of ['', '-wal', '-shm']) rmSync(file + end, { force: true });
    console.error(`round ${round}, ${mode}: ${Math.round(entry.cpu.at(-1) ?? 0)} µs CPU/req`);
  }
}
sink.close();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const off = median(results.get('off')?.cpu ?? []);
console.log('| tracing | CPU µs/req, median (all rounds) | vs off | req/s, median |');
console.log('|---|--:|--:|--:|');
for (const [mode, { cpu, rate }] of results) {
  const m = median(cpu);
  const change =
    mode === 'off' ? '–' : `${m >= off ? '+' : ''}${(((m - off) / off) * 100).toFixed(1)}%`;
  console.log(
    `| ${mode} | ${Math.round(m)} (${cpu.map(Math.round).join(', ')}) | ${change} | ${Math.round(median(rate))} |`,
  );
}
