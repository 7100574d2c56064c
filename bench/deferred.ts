import http from 'node:http';
import { cursorOf, petsPage, petsPageDeferred } from './documents.js';
import type { Fixture } from './fixture.js';
import type { ServerProcess } from './processes.js';
import { quantile } from './stats.js';

export interface DeferredResult {
  database: string;
  requests: number;
  /** The plain page (one JSON answer): milliseconds to its end. */
  plainMs: { p50: number; p99: number };
  /** The deferred page (multipart, 2022 format): to its first part, and to its end. */
  firstPartMs: { p50: number; p99: number };
  wholeMs: { p50: number; p99: number };
}

/** One POST on a fresh connection: when the first part was whole (multipart), and the end. */
function timed(url: string, query: string, after: string, accept: string) {
  return new Promise<{ first: number; whole: number }>((resolve, reject) => {
    const body = JSON.stringify({ query, variables: { after } });
    const start = performance.now();
    let first = Number.NaN;
    let text = '';
    const request = http.request(`${url}/graphql`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        accept,
        'content-length': Buffer.byteLength(body),
      },
    });
    request.once('error', reject);
    request.once('response', (response) => {
      if (response.statusCode !== 200)
        reject(new Error(`the page answered ${response.statusCode}`));
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        // The first part is whole once the boundary after it has come.
        if (Number.isNaN(first) && text.indexOf('\r\n---', 4) > 0)
          first = performance.now() - start;
      });
      response.on('end', () => {
        const whole = performance.now() - start;
        if (accept.startsWith('multipart') && !text.includes('"hasNext":false'))
          reject(new Error('the deferred page did not end with hasNext: false'));
        else resolve({ first, whole });
      });
    });
    request.end(body);
  });
}

const summary = (values: number[]) => ({
  p50: Math.round(quantile(values, 0.5) * 100) / 100,
  p99: Math.round(quantile(values, 0.99) * 100) / 100,
});

/**
 * The 100-pet page with each pet's stock deferred, one request at a time, alternating with the plain
 * page over the same cursors: how soon the first part (the pets without their stock) arrives against
 * the whole deferred page and the plain one. One at a time: a client's wait, not throughput (the
 * plain page's throughput is `graphql-pets`').
 */
export async function measureDeferred(
  product: ServerProcess,
  fixture: Fixture,
  { requests = 200 } = {},
): Promise<DeferredResult> {
  const plain: number[] = [];
  const first: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < requests + 20; i++) {
    const after = cursorOf(fixture.afterIds[i % fixture.afterIds.length] as number);
    const a = await timed(product.url, petsPage, after, 'application/json');
    const b = await timed(
      product.url,
      petsPageDeferred,
      after,
      'multipart/mixed;deferSpec=20220824',
    );
    if (i < 20) continue; // warm-up
    plain.push(a.whole);
    first.push(b.first);
    whole.push(b.whole);
  }
  return {
    database: fixture.database,
    requests,
    plainMs: summary(plain),
    firstPartMs: summary(first),
    wholeMs: summary(whole),
  };
}

export function formatDeferred(results: readonly DeferredResult[]): string {
  if (results.length === 0) return '';
  return [
    `### The 100-pet page with its stock deferred, ${results[0]?.requests} requests one at a time`,
    '',
    '| database | plain page p50 / p99 ms | deferred: first part p50 / p99 ms | deferred: whole p50 / p99 ms | first part ÷ plain page (p50) |',
    '|---|--:|--:|--:|--:|',
    ...results.map(
      (r) =>
        `| ${r.database} | ${r.plainMs.p50} / ${r.plainMs.p99} | ${r.firstPartMs.p50} / ${r.firstPartMs.p99} | ${r.wholeMs.p50} / ${r.wholeMs.p99} | ${(r.firstPartMs.p50 / r.plainMs.p50).toFixed(2)}× |`,
    ),
  ].join('\n');
}
