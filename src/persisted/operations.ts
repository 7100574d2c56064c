import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { ConfigError } from '../config.js';
import { isRecord } from '../domain/validation.js';
import { refuse, refuseOperation } from '../errors/graphql.js';

/** A persisted-operations manifest: document by hash, as GraphQL Code Generator writes it. */
export type PersistedManifest = ReadonlyMap<string, string>;

/**
 * Reads a manifest (`{"<hash>": "<document>", ...}`, the `persisted-documents.json` of GraphQL
 * Code Generator's client preset with `persistedDocuments: true`); throws a sentence naming the
 * file when it is not one.
 */
export function loadPersistedManifest(path: string): PersistedManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `PERSISTED_OPERATIONS_ONLY: ${path} is not readable JSON (${(error as Error).message})`,
    );
  }
  if (!isRecord(parsed) || !Object.values(parsed).every((value) => typeof value === 'string')) {
    throw new ConfigError(
      `PERSISTED_OPERATIONS_ONLY: ${path} must be a JSON object mapping each hash to its document`,
    );
  }
  return new Map(Object.entries(parsed as Record<string, string>));
}

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The `extensions.persistedQuery.sha256Hash` of a request's parameters, if it names one. */
function persistedHash(params: Record<string, unknown>): unknown {
  const extensions = params.extensions;
  if (!isRecord(extensions) || extensions.persistedQuery == null) return undefined;
  const persisted = extensions.persistedQuery;
  if (!isRecord(persisted) || typeof persisted.sha256Hash !== 'string') {
    throw refuse(
      'MALFORMED_REQUEST',
      '"extensions.persistedQuery" must be an object with a "sha256Hash" string',
    );
  }
  return persisted.sha256Hash;
}

/**
 * The message the standard clients look for (Apollo Client's persisted-queries link and urql's
 * persisted exchange compare it exactly) before resending the operation with its document.
 */
const NOT_FOUND_MESSAGE = 'PersistedQueryNotFound';

export interface PersistedOperationsOptions {
  /** When given, only its operations run (by hash); automatic persisted queries are off. */
  manifest?: PersistedManifest;
  /** What the documents automatic persisted queries remember may take (least recently used go first). */
  maxBytes: number;
}

export interface PersistedOperations {
  /**
   * The document each operation of a batch stands for, without registering or refusing anything
   * (the cost of a batch is counted before any of its operations is resolved): a hash alone names
   * a registered document or one sent with its hash earlier in the same batch. With a manifest,
   * only the manifest's documents: nothing else is ever parsed.
   */
  documentsOf(batch: readonly unknown[]): (string | undefined)[];
  /** Resolves each operation's document in Yoga's `onParams`, on every transport. */
  plugin: Plugin;
}

/**
 * Persisted operations, resolved in Yoga's `onParams` (for each operation of a request, and for
 * each WebSocket subscription alike), so that the limits, the cost rule and execution all see the
 * document. Yoga's own persisted-operations plugins answer with their own codes and messages,
 * which the standard clients of automatic persisted queries do not all recognise; this one answers
 * with the contract's.
 *
 * - Automatic persisted queries: `extensions.persistedQuery.sha256Hash` alone runs the document
 *   registered under that hash, or answers PERSISTED_QUERY_NOT_FOUND when there is none; sent with
 *   `query`, the hash must be the document's SHA-256 and registers it.
 * - Manifest mode: only the manifest's operations run, by hash; anything else is
 *   PERSISTED_QUERY_ONLY.
 */
export function persistedOperations({
  manifest,
  maxBytes,
}: PersistedOperationsOptions): PersistedOperations {
  const registered = new LRUCache<string, string>({
    max: 100_000,
    maxSize: maxBytes,
    sizeCalculation: (document) => 2 * document.length + 64,
  });
  // Codegen writes `sha256:<hex>` keys; a bare hex hash names the same document.
  const inManifest = (hash: unknown) =>
    typeof hash === 'string' ? (manifest?.get(hash) ?? manifest?.get(`sha256:${hash}`)) : undefined;

  const resolve = (params: GraphQLParams): GraphQLParams => {
    const hash = persistedHash(params as Record<string, unknown>);
    // With a hash, an empty query is no query (a WebSocket message must carry a query string).
    if (hash !== undefined && params.query === '') params = { ...params, query: undefined };
    if (manifest) {
      const document = inManifest(hash);
      if (document === undefined || (params.query != null && params.query !== document)) {
        throw refuseOperation(
          'PERSISTED_QUERY_ONLY',
          'This server runs only its persisted operations: send the sha256Hash of one of them ' +
            'in extensions.persistedQuery, without the query',
        );
      }
      return { ...params, query: document };
    }
    if (hash === undefined) return params;
    if (params.query != null) {
      if (typeof params.query !== 'string') return params;
      if (sha256Hex(params.query) !== hash) {
        throw refuseOperation(
          'MALFORMED_REQUEST',
          'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent with it',
        );
      }
      registered.set(hash as string, params.query);
      return params;
    }
    const document = registered.get(hash as string);
    if (document === undefined)
      throw refuseOperation('PERSISTED_QUERY_NOT_FOUND', NOT_FOUND_MESSAGE);
    return { ...params, query: document };
  };

  return {
    documentsOf(batch) {
      const inBatch = new Map<string, string>();
      return batch.map((params) => {
        if (!isRecord(params)) return undefined;
        const query =
          typeof params.query === 'string' && params.query !== '' ? params.query : undefined;
        const hash =
          isRecord(params.extensions) && isRecord(params.extensions.persistedQuery)
            ? params.extensions.persistedQuery.sha256Hash
            : undefined;
        if (manifest) {
          const document = inManifest(hash);
          return query === undefined || query === document ? document : undefined;
        }
        if (typeof hash !== 'string') return query;
        if (query !== undefined) {
          if (sha256Hex(query) === hash) inBatch.set(hash, query);
          return query;
        }
        return inBatch.get(hash) ?? registered.peek(hash);
      });
    },
    plugin: {
      onParams({ params, setParams }) {
        setParams(resolve(params));
      },
    },
  };
}
