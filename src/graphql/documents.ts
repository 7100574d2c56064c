import { type DocumentNode, parse } from 'graphql';
import { LRUCache } from 'lru-cache';

/** Parsed GraphQL documents by text: Yoga's parse cache, which the batch rules read too. */
export interface DocumentCache {
  get(text: string): DocumentNode | undefined;
  set(text: string, document: DocumentNode): void;
  /** The document of a text, parsed as Yoga would (and kept for it); undefined when it does not. */
  parse(text: string): DocumentNode | undefined;
}

/**
 * The one per-text cache of documents: Yoga's parser reads and fills it (`parserAndValidationCache`),
 * and what is computed from a document (its operation, cost walk, tags, compiled query) hangs off
 * the document object in WeakMaps, so no document text is parsed or walked twice.
 */
export function createDocumentCache(maxTokens: number, capacity = 1000): DocumentCache {
  const documents = new LRUCache<string, DocumentNode>({ max: capacity });
  return {
    get: (text) => documents.get(text),
    set(text, document) {
      documents.set(text, document);
    },
    parse(text) {
      let document = documents.get(text);
      if (!document) {
        try {
          document = parse(text, { maxTokens });
        } catch {
          return undefined; // Yoga reports the parse error itself
        }
        documents.set(text, document);
      }
      return document;
    },
  };
}
