import type { DocumentNode, validate } from 'graphql';
import { Parser } from 'graphql/language/parser.js';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { refuseOperation } from '../errors/graphql.js';

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
 * Parsed GraphQL documents by text (documents, and the parse errors of texts that do not parse):
 * the one parse cache, which Yoga's parse (`documentRules`) and the batch rules read.
 */
export interface DocumentCache {
  /** The document of a text, parsed and kept; a text that does not parse throws its error (kept too). */
  parseOrThrow(text: string): DocumentNode;
  /** The document of a text, as `parseOrThrow` gives it; undefined when it does not parse. */
  parse(text: string): DocumentNode | undefined;
  /** Drops a document that failed validation: nothing about it is worth keeping. */
  forget(document: DocumentNode): void;
}

/**
 * What a document holds on the heap, estimated from its text and tokens: graphql-js keeps a token
 * object and a location per token (about 560 bytes a token measured with 2,000 tokens; more with
 * long names), and what is computed from the document (its operation, its plan, see
 * src/graphql/plan/: about 80 bytes a token measured with 1,400 tokens, and its compiled query)
 * hangs off it. Deliberately generous: the bound must hold for the worst document.
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
 * The one per-text cache of documents: Yoga's parse reads and fills it (`documentRules`), and what
 * is computed from a document hangs off the document object in WeakMaps, so no document
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
  const documentOf = (text: string) => {
    const entry = entries.get(text);
    return entry && 'document' in entry ? entry.document : undefined;
  };
  const parseOrThrow = (text: string) => {
    const entry = entries.get(text);
    if (entry) {
      if ('document' in entry) return entry.document;
      throw entry.error;
    }
    let document: DocumentNode;
    try {
      document = parseDocument(text, maxTokens);
    } catch (error) {
      if (error instanceof Error) {
        // Written out now, the stack holds nothing else: until then it holds the frames it was
        // thrown from, and what they reference (a parser's tokens: 250 KB for 2,000 of them).
        void error.stack;
        keep(text, { error }, errorBytes(text));
      }
      throw error;
    }
    texts.set(document, text);
    keep(text, { document }, documentBytes(text, document));
    return document;
  };
  return {
    parseOrThrow,
    parse(text) {
      try {
        return parseOrThrow(text);
      } catch {
        return undefined;
      }
    },
    forget(document) {
      const text = texts.get(document);
      if (text !== undefined && documentOf(text) === document) entries.delete(text);
    },
  };
}

export interface DocumentRules {
  /** Validation as every transport runs it (`boundedValidation`). */
  validate: typeof validate;
}

/**
 * How Yoga parses a document (through the cache: `parseDocument`, the token limit) and validates it
 * (once per document: a document that passed is not validated again; one that failed is dropped
 * from the cache, see `createDocumentCache`). Yoga's own parse and validation cache is off: it would
 * hook both phases and build a key of the rules' names at every request.
 *
 * A document's validation is kept by document alone: the rules are the same at every request
 * (graphql-js's, and armor's limits, which depend on the document only) and so is the schema; the
 * checks that read variables (the cost limit) run after validation, at every request.
 */
export function documentRules(cache: DocumentCache, { validate }: DocumentRules): Plugin {
  const parse = (source: string | { body: string }) =>
    cache.parseOrThrow(typeof source === 'string' ? source : source.body);
  const valid = new WeakSet<DocumentNode>();
  const validateOnce: typeof validate = (schema, document, ...rest) => {
    if (valid.has(document)) return [];
    const errors = validate(schema, document, ...rest);
    if (errors.length === 0) valid.add(document);
    return errors;
  };
  return {
    onParse: ({ setParseFn }) => setParseFn(parse),
    onValidate: ({ params, setValidationFn }) => {
      setValidationFn(validateOnce);
      return ({ result }) => {
        if (result.length > 0) cache.forget(params.documentAST);
      };
    },
  };
}
