import autocannon from 'autocannon';
import type { HttpRequest } from './http.js';
import { percentileSorted } from './stats.js';

/** One load run, as the runner asks for it over IPC. */
export interface LoadJob {
  url: string;
  /** Cycled through in order, across all connections. */
  requests: HttpRequest[];
  seconds: number;
  connections: number;
  /** Requests per second over all connections; absent means as fast as the server answers. */
  rate?: number | undefined;
}

export interface LoadResult {
  /** 2xx responses per second. */
  reqPerSec: number;
  ok: number;
  non2xx: number;
  errors: number;
  seconds: number;
  /** Milliseconds, from autocannon's per-response timings (its histogram rounds to 1 ms). */
  latency: { p50: number; p90: number; p99: number; max: number };
}

/**
 * An `Idempotency-Key` in a request is a prefix: each request sent gets a key of its own, never
 * sent before by this process (the same key again would measure a replay).
 */
const keyPrefix = `${process.pid}-${Date.now().toString(36)}`;
let keysSent = 0;
function withUniqueKey(headers: Record<string, string>): Record<string, string> {
  const key = headers['idempotency-key'];
  if (key === undefined) return headers;
  return { ...headers, 'idempotency-key': `${key}-${keyPrefix}-${keysSent++}` };
}

async function runLoad(job: LoadJob): Promise<LoadResult> {
  let next = 0;
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration: job.seconds,
        overallRate: job.rate,
        timeout: 10,
        requests: [
          {
            setupRequest: (request) => {
              const spec = job.requests[next++ % job.requests.length] as HttpRequest;
              return {
                ...request,
                method: spec.method,
                path: spec.path,
                headers: withUniqueKey(spec.headers ?? {}),
                body: spec.body,
              } as typeof request;
            },
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, milliseconds) => {
      if (status >= 200 && status < 300) latencies.push(milliseconds);
    });
  });
  const sorted = Float64Array.from(latencies).sort();
  return {
    reqPerSec: result['2xx'] / result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    seconds: result.duration,
    latency: {
      p50: percentileSorted(sorted, 50),
      p90: percentileSorted(sorted, 90),
      p99: percentileSorted(sorted, 99),
      max: sorted.at(-1) ?? Number.NaN,
    },
  };
}

// Runs jobs one at a time for the runner, in this process of its own so that generating load never
// competes with the runner's bookkeeping.
process.on('message', (job: LoadJob) => {
  runLoad(job).then(
    (result) => process.send?.({ ok: true, result }),
    (error: unknown) => process.send?.({ ok: false, error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
