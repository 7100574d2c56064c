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
  /** The product answering the reference requests (see `Servers.reference`). */
  reference?: ServerFigures;
  /** product / reference req/s, per round. */
  productToReference?: RatioSpread;
}

/** The servers one scenario is measured on: the product, and what it is compared with. */
export interface Servers {
  product: ServerProcess;
  floor?: ServerProcess | undefined;
  baseline?: ServerProcess | undefined;
  /**
   * Other requests, to the product or to a floor, measured in alternation with the scenario's own:
   * what the product is also compared with (a keyed `placeOrder` against the plain one).
   */
  reference?: Contestant | undefined;
}

/** One server answering one list of requests: what a run loads, and what its figures describe. */
export interface Contestant {
  server: ServerProcess;
  requests: HttpRequest[];
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
 * (product, floor, baseline, the product on the reference requests, then the reverse, …) so that a
 * noisy neighbour hits them alike (ratios are taken per round), then latency at a fixed rate: half
 * of the slowest one's median max throughput. Product and floor are always neighbours, so their
 * ratio is the steadiest. With `profileFile`, each saturation run is profiled on its own (a server
 * that answers two contestants, the product's plain and keyed orders say, gets a profile of each)
 * and written where `profileFile` says for the contestant's role and the round.
 */
export async function measure(
  load: LoadGenerator,
  plan: Plan,
  requests: HttpRequest[],
  { product, floor, baseline, reference }: Servers,
  profileFile?: (role: string, round: number) => string,
): Promise<Measurement> {
  const of = (server: ServerProcess | undefined, list = requests) =>
    server ? { server, requests: list } : undefined;
  const roles = {
    product: { server: product, requests },
    floor: of(floor),
    baseline: of(baseline),
    reference,
  };
  const roleOf = new Map<Contestant, string>();
  for (const [role, contestant] of Object.entries(roles))
    if (contestant) roleOf.set(contestant, role);
  const contestants = [...roleOf.keys()];
  const peaks = new Map<ServerProcess, number>();
  const run = async ({ server, requests }: Contestant, seconds: number, rate?: number) => {
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
  /** Runs `count` rounds, flipping the order every round: A B, B A, A B, … */
  const alternate = async (
    count: number,
    once: (contestant: Contestant, round: number) => Promise<void>,
  ) => {
    for (let round = 0; round < count; round++) {
      const order = round % 2 === 0 ? contestants : [...contestants].reverse();
      for (const contestant of order) await once(contestant, round);
    }
  };

  for (const contestant of contestants) await run(contestant, plan.warmupSeconds);

  const saturation = new Map<Contestant, number[]>(contestants.map((c) => [c, []]));
  const underLoad = new Map(
    contestants.map((c) => [c, { statements: 0, cpuMicros: 0, requests: 0 }]),
  );
  await alternate(plan.runs, async (contestant, round) => {
    const { server } = contestant;
    if (profileFile) await server.startProfile();
    const before = await server.stats();
    const result = await run(contestant, plan.runSeconds);
    const after = await server.stats();
    if (profileFile) await server.writeProfile(profileFile(roleOf.get(contestant) ?? '', round));
    const counts = underLoad.get(contestant);
    if (counts) {
      counts.statements += after.statements - before.statements;
      counts.cpuMicros += after.cpuMicros - before.cpuMicros;
      counts.requests += result.ok;
    }
    saturation.get(contestant)?.push(result.reqPerSec);
  });

  const slowest = Math.min(...contestants.map((c) => median(saturation.get(c) ?? [])));
  const rate = Math.max(1, Math.floor(slowest / 2));
  const atRate = new Map<Contestant, LoadResult[]>(contestants.map((c) => [c, []]));
  await alternate(plan.rateRuns, async (contestant) => {
    atRate.get(contestant)?.push(await run(contestant, plan.rateSeconds, rate));
  });

  const figures = (contestant: Contestant): ServerFigures => {
    const runs = saturation.get(contestant) ?? [];
    const rateRuns = atRate.get(contestant) ?? [];
    const counts = underLoad.get(contestant);
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
      peakRssBytes: peaks.get(contestant.server) ?? 0,
    };
  };

  /** a / b req/s, run by run (each round has one run of every contestant). */
  const ratioOf = (a: Contestant, b: Contestant): RatioSpread => {
    const bRuns = saturation.get(b) ?? [];
    const runs = (saturation.get(a) ?? []).map((value, i) => value / (bRuns[i] ?? Number.NaN));
    return { ...spread(runs), runs };
  };
  const { floor: floorRuns, baseline: baselineRuns, reference: referenceRuns } = roles;
  return {
    product: figures(roles.product),
    ...(floorRuns
      ? { floor: figures(floorRuns), productToFloor: ratioOf(roles.product, floorRuns) }
      : {}),
    ...(baselineRuns
      ? { baseline: figures(baselineRuns), ratio: ratioOf(roles.product, baselineRuns) }
      : {}),
    ...(floorRuns && baselineRuns ? { floorRatio: ratioOf(floorRuns, baselineRuns) } : {}),
    ...(referenceRuns
      ? {
          reference: figures(referenceRuns),
          productToReference: ratioOf(roles.product, referenceRuns),
        }
      : {}),
  };
}
