import { createHash } from 'node:crypto';
import { cursorOf, petById, petsPage } from './documents.js';
import type { Fixture } from './fixture.js';
import { type HttpRequest, send } from './http.js';
import type { LoadGenerator } from './processes.js';
import { startProduct } from './processes.js';
import { quantile } from './stats.js';
import { freePort, startVarnish, varnishAvailable, varnishdPath } from './varnishd.js';

export interface VarnishRow {
  name: string;
  /** 2xx a second through Varnish, and from the origin alone (the same requests). */
  throughVarnish: number;
  origin: number;
  /** Varnish's hits over its lookups during the run through it. */
  hitRatio: number;
}

export interface VarnishResult {
  database: string;
  seconds: number;
  rows: VarnishRow[];
  /** Milliseconds from a write's answer until a read through Varnish shows it. */
  purgeLagMs: { p50: number; p99: number; max: number };
  writes: number;
}

const ACCEPT = { accept: 'application/json' };

/** pet(id) by GET: one URL per pet. */
const petGets = (fixture: Fixture): HttpRequest[] =>
  fixture.readIds.map((id) => ({
    method: 'GET',
    path: `/graphql?${new URLSearchParams({ query: petById, variables: JSON.stringify({ id: String(id) }) })}`,
    headers: ACCEPT,
  }));

const pageHash = createHash('sha256').update(petsPage).digest('hex');

/** The 100-pet page by a hash-only persisted GET: one URL per cursor. */
const pageGets = (fixture: Fixture): HttpRequest[] =>
  fixture.afterIds.map((after) => ({
    method: 'GET',
    path: `/graphql?${new URLSearchParams({
      extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: pageHash } }),
      variables: JSON.stringify({ after: cursorOf(after) }),
    })}`,
    headers: ACCEPT,
  }));

/**
 * "Through Varnish": a product with a CDN lifetime and purges (EDGE_CACHE_MAX_AGE_S,
 * EDGE_PURGE_URL) behind varnishd with docs/varnish/default.vcl. pet(id) by GET and the 100-pet page
 * by persisted GET, at saturation through Varnish (after a warm-up run as long) and from the origin
 * alone (its response cache off, as the other scenarios run it), with Varnish's hit ratio; then the purge lag: a pet read
 * through Varnish (kept), renamed at the origin, read through Varnish every 5 ms until it shows.
 */
export async function measureVarnish(
  load: LoadGenerator,
  productEnv: Record<string, string>,
  fixture: Fixture,
  token: string,
  { seconds = 5, connections = 10, writes = 50 } = {},
): Promise<VarnishResult | undefined> {
  if (!varnishAvailable) {
    process.stderr.write(`through Varnish: skipped, no varnishd at ${varnishdPath}\n`);
    return undefined;
  }
  const port = await freePort();
  const product = await startProduct({
    ...productEnv,
    EDGE_CACHE_MAX_AGE_S: '300',
    EDGE_PURGE_URL: `http://127.0.0.1:${port}/`,
    // Tags for Varnish's xkey (the headline product has them off).
    EDGE_CACHE_TAGS: 'true',
  });
  const varnish = await startVarnish(port, Number(new URL(product.url).port));
  try {
    // The page's document, registered once (automatic persisted queries).
    const registered = await send(product.url, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: petsPage,
        extensions: { persistedQuery: { version: 1, sha256Hash: pageHash } },
      }),
    });
    if (registered.status !== 200) throw new Error(`registering the page: ${registered.body}`);
    const rows: VarnishRow[] = [];
    for (const [name, requests] of [
      ['GraphQL pet(id) by GET', petGets(fixture)],
      ['the 100-pet page by persisted GET', pageGets(fixture)],
    ] as const) {
      const job = { requests: [...requests], seconds, connections };
      await load.run({ ...job, url: product.url, seconds: 1 });
      const origin = await load.run({ ...job, url: product.url });
      // Varnish warmed as long as it is then measured: what it holds after `seconds` of traffic.
      await load.run({ ...job, url: varnish.url });
      const before = await varnish.counters();
      const through = await load.run({ ...job, url: varnish.url });
      const after = await varnish.counters();
      const delta = (counter: string) => (after[counter] ?? 0) - (before[counter] ?? 0);
      const hits = delta('MAIN.cache_hit');
      const lookups = hits + delta('MAIN.cache_miss');
      rows.push({
        name,
        throughVarnish: through.reqPerSec,
        origin: origin.reqPerSec,
        hitRatio: lookups === 0 ? 0 : hits / lookups,
      });
    }
    const lags = await purgeLags(product.url, varnish.url, fixture, token, writes);
    return {
      database: fixture.database,
      seconds,
      rows,
      purgeLagMs: {
        p50: round(quantile(lags, 0.5)),
        p99: round(quantile(lags, 0.99)),
        max: round(Math.max(...lags)),
      },
      writes,
    };
  } finally {
    await varnish.stop();
    await product.stop();
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Each write's lag: from its answer at the origin to the first read through Varnish showing it. */
async function purgeLags(
  origin: string,
  varnish: string,
  fixture: Fixture,
  token: string,
  writes: number,
): Promise<number[]> {
  const lags: number[] = [];
  for (let i = 0; i < writes; i++) {
    const id = fixture.readIds[i % fixture.readIds.length] as number;
    const path = `/api/pets/${id}`;
    const before = JSON.parse((await send(varnish, { method: 'GET', path })).body) as {
      categoryId: number;
    };
    const name = `Lag ${i} ${Date.now()}`;
    const written = await send(origin, {
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        query:
          'mutation Rename($id: ID!, $input: NewPet!) { updatePet(id: $id, input: $input) { id } }',
        variables: { id: String(id), input: { name, categoryId: String(before.categoryId) } },
      }),
    });
    const start = performance.now();
    if (written.status !== 200 || written.body.includes('"errors"'))
      throw new Error(`the write failed: ${written.body}`);
    for (;;) {
      const read = await send(varnish, { method: 'GET', path });
      if (read.body.includes(name)) break;
      if (performance.now() - start > 30_000) throw new Error(`pet ${id} not purged in 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    lags.push(performance.now() - start);
  }
  return lags;
}

export function formatVarnish(results: readonly VarnishResult[]): string {
  if (results.length === 0) return '';
  const lines = [
    `### Through Varnish (docs/varnish/default.vcl), ${results[0]?.seconds} s a run`,
    '',
    '| database | reads | through Varnish req/s | origin alone req/s | ratio | hit ratio |',
    '|---|---|---:|---:|---:|---:|',
  ];
  for (const { database, rows } of results)
    for (const row of rows)
      lines.push(
        `| ${database} | ${row.name} | ${Math.round(row.throughVarnish)} | ${Math.round(row.origin)} | ${(row.throughVarnish / row.origin).toFixed(2)} | ${(row.hitRatio * 100).toFixed(1)}% |`,
      );
  lines.push(
    '',
    '| database | writes | purge lag p50 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|',
  );
  for (const { database, writes, purgeLagMs } of results)
    lines.push(
      `| ${database} | ${writes} | ${purgeLagMs.p50} | ${purgeLagMs.p99} | ${purgeLagMs.max} |`,
    );
  return lines.join('\n');
}
