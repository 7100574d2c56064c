import type { EdgePurgeKind } from '../config.js';

/** How long one purge request may take before it counts as failed (and is retried). */
const REQUEST_TIMEOUT_MS = 5000;

export interface PurgeTarget {
  url: string;
  kind: EdgePurgeKind;
  token: string | undefined;
}

/** The request that purges `tags` from one kind of CDN. */
function purgeRequest(
  { kind, token }: Pick<PurgeTarget, 'kind' | 'token'>,
  tags: readonly string[],
): RequestInit {
  switch (kind) {
    case 'varnish':
      // docs/varnish/default.vcl answers it with xkey.purge.
      return { method: 'PURGE', headers: { 'xkey-purge': tags.join(' ') } };
    case 'fastly':
      return {
        method: 'POST',
        headers: { 'surrogate-key': tags.join(' '), 'fastly-key': token ?? '' },
      };
    case 'cloudflare':
      return {
        method: 'POST',
        headers: { authorization: `Bearer ${token ?? ''}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tags }),
      };
  }
}

/** Sends one purge; throws unless the CDN answers 2xx in time. */
export async function sendPurge(target: PurgeTarget, tags: readonly string[]): Promise<void> {
  const response = await fetch(target.url, {
    ...purgeRequest(target, tags),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  // Read to its end: the connection goes back to the pool.
  await response.arrayBuffer().catch(() => {});
  if (!response.ok) throw new Error(`the CDN answered ${response.status} to a purge`);
}

/**
 * `tags` in requests of at most `maxTags` tags and `maxBytes` bytes of them each (EDGE_PURGE_MAX_TAGS,
 * EDGE_PURGE_MAX_BYTES): Fastly takes 256 keys a request, Cloudflare 100 tags, Varnish a header of
 * 8 KiB by default.
 */
export function purgeBatches(
  tags: Iterable<string>,
  maxTags: number,
  maxBytes: number,
): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const tag of tags) {
    const size = Buffer.byteLength(tag) + 3;
    if (batch.length > 0 && (batch.length >= maxTags || bytes + size > maxBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(tag);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
