import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createDocumentCache, documentBytes } from '../../src/graphql/documents.js';

const query = (i: number) => `query Q${i} { pet(id: "${i}") { id name category { name } } }`;

describe('the parse cache is bounded in bytes (GRAPHQL_DOCUMENT_CACHE_BYTES)', () => {
  it('keeps documents up to its bound, then drops the least recently used', () => {
    const one = documentBytes(query(0), parse(query(0)));
    const cache = createDocumentCache(2000, one * 20);
    const first = cache.parse(query(0));
    expect(cache.parse(query(0))).toBe(first);
    for (let i = 1; i < 100; i++) cache.parse(query(i));
    expect(cache.parse(query(0)) === first).toBe(false);
    expect(cache.parse(query(99))).toBe(cache.parse(query(99)));
  });

  it('never keeps a document above a sixteenth of its bound', () => {
    const large = `{ ${Array.from({ length: 500 }, (_, i) => `f${i}`).join(' ')} }`;
    const cache = createDocumentCache(2000, documentBytes(large, parse(large)) * 15);
    // Identity, not equality: comparing documents deeply walks their token lists.
    const first = cache.parse(large);
    expect(cache.parse(large) === first).toBe(false);
  });

  it('forgets a document that failed validation', () => {
    const cache = createDocumentCache(2000, 1024 * 1024);
    const document = cache.parse('{ nothingLikeThis }');
    expect(cache.parse('{ nothingLikeThis }')).toBe(document);
    if (document) cache.forget(document);
    expect(cache.parse('{ nothingLikeThis }') === document).toBe(false);
  });
});
