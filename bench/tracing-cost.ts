/**
 * What tracing costs the GraphQL `pet(id)` read: the server's CPU time per request (from
 * /proc/<pid>/stat), with tracing off, on with a 10% sampler, and on with every request sampled.
 * One server per mode, all running at once, and the same requests sent to each in turn (request n
 * to server n mod modes): a burst of other work on the machine slows every mode alike, so the
 * ratios hold where absolute timings would not. Spans go to a sink on loopback that answers every
 * export at once.
 *
 *   npm run build && npx tsx bench/tracing-cost.ts [requests per mode and round, default 3000] [rounds, default 5]
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

const servers = await Promise.all(
  Object.entries(modes).map(async ([mode, env], index) => {
    const file = join(tmpdir(), `petstore-tracing-cost-${process.pid}-${index}.db`);
    return { mode, file, ...(await start(mode, env, file)) };
  }),
);
const page = await query(servers[0]?.url ?? '', '{ pets(first: 100) { edges { node { id } } } }');
const edges = (page.data.pets as { edges: { node: { id: string } }[] }).edges;
// The sample data is the same on every server, and so are its ids.
const ids = edges.map((edge) => edge.node.id);

/** `count` requests to each server, interleaved, from four clients. */
async function load(count: number) {
  let next = 0;
  const total = count * servers.length;
  const worker = async () => {
    while (next < total) {
      const n = next++;
      const id = ids[Math.floor(n / servers.length) % ids.length];
      await query(
        servers[n % servers.length]?.url ?? '',
        `{ pet(id: "${id}") { id name categoryId status } }`,
      );
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

await load(requests / 2); // warm-up: compiled queries, JIT, connections
const cpu = new Map<string, number[]>(servers.map(({ mode }) => [mode, []]));
for (let round = 1; round <= rounds; round++) {
  const before = servers.map(({ child }) => cpuMicros(child.pid as number));
  await load(requests);
  servers.forEach(({ mode, child }, index) => {
    cpu.get(mode)?.push((cpuMicros(child.pid as number) - (before[index] ?? 0)) / requests);
  });
  console.error(
    `round ${round}: ${servers.map(({ mode }) => `${mode} ${Math.round(cpu.get(mode)?.at(-1) ?? 0)}`).join(', ')} µs CPU/req`,
  );
}
for (const { child, file } of servers) {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  for (const end of ['', '-wal', '-shm']) rmSync(file + end, { force: true });
}
sink.close();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const off = cpu.get('off') ?? [];
console.log(
  `| tracing (Node ${process.versions.node}) | CPU µs/req, median (all rounds) | vs off, median of the rounds' ratios |`,
);
console.log('|---|--:|--:|');
for (const [mode, values] of cpu) {
  const ratios = values.map((value, round) => value / (off[round] ?? value));
  const change = median(ratios) - 1;
  const shown = mode === 'off' ? '–' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)}%`;
  console.log(
    `| ${mode} | ${Math.round(median(values))} (${values.map(Math.round).join(', ')}) | ${shown} |`,
  );
}
