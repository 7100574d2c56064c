import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpRequest } from './http.js';
import type { LoadResult } from './load.js';
import type { LoadGenerator, ServerProcess } from './processes.js';
import { median, type Spread, spread } from './stats.js';

/** How long and how often to run; `--quick` and the full run differ only here. */
export interface Plan {
  warmupSeconds: number;
  runSeconds: number;
  /** Saturation runs per server; with a baseline they alternate A B, B A, A B, … */
  runs: number;
  rateSeconds: number;
  /** Fixed-rate runs per server, alternating the same way. */
  rateRuns: number;
  /** Connections at saturation. */
  connections: number;
  /**
   * Connections at the fixed rate. autocannon hands each connection its share of the rate at the
   * start of every second and the connection spends it back to back, so this is also the most
   * requests in flight at once: few connections keep "half load" from becoming short bursts of
   * full load.
   */
  rateConnections: number;
  /** Requests checked and counted before timing. */
  checkRequests: number;
}

export const quickPlan: Plan = {
  warmupSeconds: 1,
  runSeconds: 1.5,
  runs: 2,
  rateSeconds: 2,
  rateRuns: 1,
  connections: 10,
  rateConnections: 2,
  checkRequests: 10,
};

export const fullPlan: Plan = {
  warmupSeconds: 5,
  runSeconds: 5,
  runs: 4,
  rateSeconds: 5,
  rateRuns: 2,
  connections: 10,
  rateConnections: 2,
  checkRequests: 50,
};

export interface ServerFigures {
  /** Max throughput: median and range over the saturation runs. */
  reqPerSec: Spread;
  saturationRuns: number[];
  /**
   * SQL statements per answered request over the saturation runs: below the sequential count when
   * concurrent requests share statements (the product's coalesced reads).
   */
  statementsUnderLoad: number;
  /**
   * CPU time (user + system, all of the server's threads) per answered request over the
   * saturation runs, in microseconds: the work a request costs, far less sensitive to neighbours
   * than req/s.
   */
  cpuMicrosPerRequest: number;
  /** Latency at the fixed rate, medians over the fixed-rate runs. */
  latency: { rate: number; achieved: number; p50: number; p99: number };
  rateRuns: LoadResult[];
  peakRssBytes: number;
}

/** A ratio of req/s, one per round of neighbouring runs, summarised. */
export type RatioSpread = Spread & { runs: number[] };

export interface Measurement {
  product: ServerFigures;
  /** The framework floor (bare Yoga or bare Hono with the product's schema and reads). */
  floor?: ServerFigures;
  baseline?: ServerFigures;
  /** product / baseline req/s, one ratio per round of neighbouring runs. */
  ratio?: RatioSpread;
  /** floor / baseline req/s, per round. */
  floorRatio?: RatioSpread;
  /** product / floor req/s, per round. */
  productToFloor?: RatioSpread;
}

/** The servers one scenario is measured on: the product, and what it is compared with. */
export interface Servers {
  product: ServerProcess;
  floor?: ServerProcess | undefined;
  baseline?: ServerProcess | undefined;
}

/** Polls a server's RSS every 100 ms while `work` runs; keeps the peak in `peaks`. */
async function sampleRss<T>(
  server: ServerProcess,
  peaks: Map<ServerProcess, number>,
  work: Promise<T>,
): Promise<T> {
  let running = true;
  const poll = (async () => {
    while (running) {
      const { rss } = await server.stats();
      peaks.set(server, Math.max(peaks.get(server) ?? 0, rss));
      await sleep(100);
    }
  })();
  try {
    return await work;
  } finally {
    running = false;
    await poll;
  }
}

/**
 * Measures one scenario: a warm-up per server, saturation runs alternating between the servers
 * (product, floor, baseline, then the reverse, …) so that a noisy neighbour hits them alike (ratios
 * are taken per round), then latency at a fixed rate: half of the slowest server's median max
 * throughput. Product and floor are always neighbours, so their ratio is the steadiest.
 */
export async function measure(
  load: LoadGenerator,
  plan: Plan,
  requests: HttpRequest[],
  { product, floor, baseline }: Servers,
): Promise<Measurement> {
  const servers = [product, floor, baseline].filter(
    (server): server is ServerProcess => server !== undefined,
  );
  const peaks = new Map<ServerProcess, number>();
  const run = async (server: ServerProcess, seconds: number, rate?: number) => {
    const connections = rate ? plan.rateConnections : plan.connections;
    const job = { url: server.url, requests, seconds, connections, rate };
    const result = await sampleRss(server, peaks, load.run(job));
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(
        `${server.name}: ${result.non2xx} non-2xx responses and ${result.errors} errors under load`,
      );
    }
    return result;
  };
  /** Runs `count` rounds, flipping the server order every round: A B, B A, A B, … */
  const alternate = async (count: number, once: (server: ServerProcess) => Promise<void>) => {
    for (let round = 0; round < count; round++) {
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) await once(server);
    }
  };

  for (const server of servers) await run(server, plan.warmupSeconds);

  const saturation = new Map<ServerProcess, number[]>(servers.map((server) => [server, []]));
  const underLoad = new Map(
    servers.map((server) => [server, { statements: 0, cpuMicros: 0, requests: 0 }]),
  );
  await alternate(plan.runs, async (server) => {
    const before = await server.stats();
    const result = await run(server, plan.runSeconds);
    const after = await server.stats();
    const counts = underLoad.get(server);
    if (counts) {
      counts.statements += after.statements - before.statements;
      counts.cpuMicros += after.cpuMicros - before.cpuMicros;
      counts.requests += result.ok;
    }
    saturation.get(server)?.push(result.reqPerSec);
  });

  const slowest = Math.min(...servers.map((server) => median(saturation.get(server) ?? [])));
  const rate = Math.max(1, Math.floor(slowest / 2));
  const atRate = new Map<ServerProcess, LoadResult[]>(servers.map((server) => [server, []]));
  await alternate(plan.rateRuns, async (server) => {
    atRate.get(server)?.push(await run(server, plan.rateSeconds, rate));
  });

  const figures = (server: ServerProcess): ServerFigures => {
    const runs = saturation.get(server) ?? [];
    const rateRuns = atRate.get(server) ?? [];
    const counts = underLoad.get(server);
    return {
      reqPerSec: spread(runs),
      saturationRuns: runs,
      statementsUnderLoad: counts?.requests ? counts.statements / counts.requests : Number.NaN,
      cpuMicrosPerRequest: counts?.requests ? counts.cpuMicros / counts.requests : Number.NaN,
      latency: {
        rate,
        achieved: median(rateRuns.map((result) => result.reqPerSec)),
        p50: median(rateRuns.map((result) => result.latency.p50)),
        p99: median(rateRuns.map((result) => result.latency.p99)),
      },
      rateRuns,
      peakRssBytes: peaks.get(server) ?? 0,
    };
  };

  /** a / b req/s, run by run (each round has one run of every server). */
  const ratioOf = (a: ServerProcess, b: ServerProcess): RatioSpread => {
    const bRuns = saturation.get(b) ?? [];
    const runs = (saturation.get(a) ?? []).map((value, i) => value / (bRuns[i] ?? Number.NaN));
    return { ...spread(runs), runs };
  };
  return {
    product: figures(product),
    ...(floor ? { floor: figures(floor), productToFloor: ratioOf(product, floor) } : {}),
    ...(baseline ? { baseline: figures(baseline), ratio: ratioOf(product, baseline) } : {}),
    ...(floor && baseline ? { floorRatio: ratioOf(floor, baseline) } : {}),
  };
}
