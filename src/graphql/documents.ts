import type { DocumentNode, validate } from 'graphql';
import { Parser } from 'graphql/language/parser.js';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { refuseOperation } from './request-errors.js';

/**
 * Parses a document, at most `maxTokens` tokens of it: a longer one is QUERY_TOO_COMPLEX, found by
 * graphql-js's own count as it reads (the same rule for Yoga's parse and the batch rules').
 */
export function parseDocument(text: string, maxTokens: number): DocumentNode {
  const parser = new Parser(text, { maxTokens });
  try {
    return parser.parseDocument();
  } catch (error) {
    if (parser.tokenCount <= maxTokens) throw error;
  }
  throw refuseOperation(
    'QUERY_TOO_COMPLEX',
    `The document has more than ${maxTokens} tokens (names, punctuation and values), the limit; send a smaller one`,
  );
}

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

/** A parse error keeps its source text, and a little more (its stack once written out). */
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
        // Written out now, the stack holds nothing else: until then it holds the frames it was
        // thrown from, and what they reference (a parser's tokens: 250 KB for 2,000 of them).
        void error.stack;
        keep(text, { error }, errorBytes(text));
      },
    },
    parse(text) {
      let document = documents.get(text);
      if (!document) {
        if (entries.has(text)) return undefined; // a parse error Yoga reports itself
        try {
          document = parseDocument(text, maxTokens);
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

export interface DocumentRules {
  maxTokens: number;
  /** Validation as every transport runs it (`boundedValidation`). */
  validate: typeof validate;
}

/**
 * How Yoga parses (`parseDocument`: the token limit) and validates a document, and the cache's
 * rule that a document failing validation is dropped (see `createDocumentCache`).
 */
export function documentRules(
  cache: DocumentCache,
  { maxTokens, validate }: DocumentRules,
): Plugin {
  const parse = (source: string | { body: string }) =>
    parseDocument(typeof source === 'string' ? source : source.body, maxTokens);
  return {
    onParse: ({ setParseFn }) => setParseFn(parse),
    onValidate: ({ params, setValidationFn }) => {
      setValidationFn(validate);
      return ({ result }) => {
        if (result.length > 0) cache.forget(params.documentAST);
      };
    },
  };
}
