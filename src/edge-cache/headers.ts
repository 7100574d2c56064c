import type { EdgeSettings } from '../config.js';

/** The most bytes a tag header takes (`Surrogate-Key`, `Cache-Tag`): Varnish and CDNs cap headers. */
export const MAX_TAG_HEADER_BYTES = 16 * 1024;

/**
 * What the tags of one answer become in its headers: tags are ASCII (`pet:42`, `pet:*`, `*`), so a
 * header's length is its size. Past the bound, each entity tag gives way to its kind's list tag,
 * which every change of that kind purges too (src/cache/tags.ts's `changeTags`): coarser, never
 * staler. A list of every kind still too long (it cannot be: four kinds) becomes `*`.
 */
export function boundedTags(tags: readonly string[]): readonly string[] {
  let length = tags.length - 1;
  for (const tag of tags) length += tag.length;
  if (length <= MAX_TAG_HEADER_BYTES) return tags;
  const lists = new Set<string>();
  for (const tag of tags)
    lists.add(tag.includes(':') ? `${tag.slice(0, tag.indexOf(':'))}:*` : tag);
  const coarse = [...lists];
  return coarse.join(' ').length <= MAX_TAG_HEADER_BYTES ? coarse : ['*'];
}

/** The headers a public answer gives a CDN for its tags (lower-case names, as stored). */
export type EdgeHeaders = (tags: readonly string[]) => Record<string, string>;

/**
 * The edge headers of public answers the response cache may keep, or undefined when they are off
 * (EDGE_CACHE_TAGS=false): `Surrogate-Key` (Varnish's xkey, Fastly) and `Cache-Tag` (Cloudflare)
 * name the answer's tags; with EDGE_CACHE_MAX_AGE_S, `CDN-Cache-Control` (RFC 9213) and
 * `Surrogate-Control` give the CDN a lifetime, while `Cache-Control` stays for browsers.
 */
export function edgeHeaders(settings: EdgeSettings): EdgeHeaders | undefined {
  if (!settings.tags) return undefined;
  const lifetime = settings.maxAgeS > 0 ? `max-age=${settings.maxAgeS}` : undefined;
  return (tags) => {
    const headers: Record<string, string> = {};
    if (tags.length > 0) {
      const named = boundedTags(tags);
      headers['surrogate-key'] = named.join(' ');
      headers['cache-tag'] = named.join(',');
    }
    if (lifetime) {
      headers['cdn-cache-control'] = lifetime;
      headers['surrogate-control'] = lifetime;
    }
    return headers;
  };
}
