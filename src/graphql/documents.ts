import { type DocumentNode, parse } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';

/**
 * Parsed GraphQL documents by text: Yoga's parse cache (documents, and the parse errors of texts
 * that do not parse), which the batch rules read too.
 */
export interface DocumentCache {
  /** Yoga's `documentCache`. */
  readonly documents: {
    get(text: string): DocumentNode | undefined;
    set(text: string, document: DocumentNode): void;
  };
  /** Yoga's `errorCache`: the parse error of a text, so that it is not parsed again. */
  readonly errors: { get(text: string): Error | undefined; set(text: string, error: Error): void };
  /** The document of a text, parsed as Yoga would (and kept for it); undefined when it does not. */
  parse(text: string): DocumentNode | undefined;
  /** Drops a document that failed validation: nothing about it is worth keeping. */
  forget(document: DocumentNode): void;
}

/**
 * What a document holds on the heap, estimated from its text and tokens: graphql-js keeps a token
 * object and a location per token (about 560 bytes a token measured with 2,000 tokens; more with
 * long names), and what is computed from the document (its operation, cost walk, tags, compiled
 * query) hangs off it. Deliberately generous: the bound must hold for the worst document.
 */
export function documentBytes(text: string, document: DocumentNode): number {
  let tokens = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) tokens++;
  return 2 * text.length + 1024 * tokens;
}

/** A parse error keeps its source text, and a little more. */
const errorBytes = (text: string) => 2 * text.length + 1024;

type Entry = { document: DocumentNode } | { error: Error };

/**
 * The one per-text cache of documents: Yoga's parser reads and fills it (`parserAndValidationCache`),
 * and what is computed from a document hangs off the document object in WeakMaps, so no document
 * text is parsed or walked twice. Bounded in bytes (`documentBytes`, the least recently used go
 * first); a document that would take more than a sixteenth of the bound is not kept at all, nor is
 * one that fails validation, so no stream of distinct or invalid documents can grow the heap.
 */
export function createDocumentCache(maxTokens: number, maxBytes: number): DocumentCache {
  const largest = Math.floor(maxBytes / 16);
  const entries = new LRUCache<string, Entry>({ max: 100_000, maxSize: maxBytes });
  const texts = new WeakMap<DocumentNode, string>();
  const keep = (text: string, entry: Entry, bytes: number) => {
    if (bytes <= largest) entries.set(text, entry, { size: Math.max(1, bytes) });
  };
  const documents = {
    get(text: string) {
      const entry = entries.get(text);
      return entry && 'document' in entry ? entry.document : undefined;
    },
    set(text: string, document: DocumentNode) {
      texts.set(document, text);
      keep(text, { document }, documentBytes(text, document));
    },
  };
  return {
    documents,
    errors: {
      get(text) {
        const entry = entries.get(text);
        return entry && 'error' in entry ? entry.error : undefined;
      },
      set(text, error) {
        keep(text, { error }, errorBytes(text));
      },
    },
    parse(text) {
      let document = documents.get(text);
      if (!document) {
        if (entries.has(text)) return undefined; // a parse error Yoga reports itself
        try {
          document = parse(text, { maxTokens });
        } catch {
          return undefined;
        }
        documents.set(text, document);
      }
      return document;
    },
    forget(document) {
      const text = texts.get(document);
      if (text !== undefined && documents.get(text) === document) entries.delete(text);
    },
  };
}

/** Drops each document that fails validation from the cache (see `createDocumentCache`). */
export function forgetInvalidDocuments(cache: DocumentCache): Plugin {
  return {
    onValidate:
      ({ params }) =>
      ({ result }) => {
        if (result.length > 0) cache.forget(params.documentAST);
      },
  };
}
