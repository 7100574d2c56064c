import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { type DocumentNode, type GraphQLError, type GraphQLSchema, parse } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { Limits } from '../config.js';
import { isRecord } from '../domain/validation.js';
import { operationCost } from './cost.js';
import { refuseOperation } from './request-errors.js';

const tooComplex = (message: string) => refuseOperation('QUERY_TOO_COMPLEX', message);

/**
 * Marks an armor rejection with the contract's code before armor throws it from validation, with
 * the status rule of every GraphQL request error (see `refuseOperation`).
 */
function markTooComplex(_context: unknown, error: GraphQLError) {
  // The token limit is enforced by the parser, which prefixes its message.
  error.message = error.message.replace(/^Syntax Error: /, '');
  Object.assign(error.extensions, tooComplex(error.message).extensions);
}

const onReject = [markTooComplex];

/** More operations in one batched request than allowed: QUERY_TOO_COMPLEX, before any runs. */
export function batchLimit(limit: number): Plugin {
  return {
    onRequestParse: () => ({
      onRequestParseDone({ requestParserResult }) {
        if (Array.isArray(requestParserResult) && requestParserResult.length > limit) {
          throw tooComplex(`A batch may hold at most ${limit} operations`);
        }
      },
    }),
  };
}

/** Depth, alias, token and directive limits (graphql-armor). The cost limit is `costLimit`. */
export function queryLimits(limits: Limits): Plugin {
  return EnvelopArmorPlugin({
    maxDepth: { n: limits.graphqlDepth, onReject },
    maxAliases: { n: limits.graphqlAliases, onReject },
    maxTokens: { n: limits.graphqlTokens, onReject },
    costLimit: { enabled: false },
    maxDirectives: { onReject },
    // Suggestions help explorers in GraphiQL; the schema is public anyway.
    blockFieldSuggestion: { enabled: false },
  }) as Plugin;
}

export interface CostLimitOptions {
  schema: GraphQLSchema;
  maxCost: number;
  maxTokens: number;
  /** How to count the real size of each unpaged list, by schema coordinate (`Query.categories`). */
  unpagedLists: Record<string, () => Promise<number>>;
}

/** Parsed documents by text, so that the cost rule parses a repeated query once. */
class DocumentCache {
  readonly #documents = new Map<string, DocumentNode | null>();
  constructor(
    private readonly maxTokens: number,
    private readonly capacity = 1000,
  ) {}

  /** The document, or null when it does not parse (Yoga reports that error itself). */
  get(query: string): DocumentNode | null {
    let document = this.#documents.get(query);
    if (document === undefined) {
      try {
        document = parse(query, { noLocation: true, maxTokens: this.maxTokens });
      } catch {
        document = null;
      }
      if (this.#documents.size >= this.capacity)
        this.#documents.delete(this.#documents.keys().next().value as string);
      this.#documents.set(query, document);
    }
    return document;
  }
}

/** Refuses operations whose cost is over the limit (QUERY_TOO_COMPLEX); see `costRule`. */
export type CostCheck = (operations: readonly GraphQLParams[]) => Promise<void>;

/**
 * The cost limit, evaluated with the real variable values before anything runs: every page size
 * counts however it is spelled, and a batch costs the sum of its operations (see
 * `operationCost`). Over the limit the whole request is QUERY_TOO_COMPLEX. HTTP requests meet it
 * in `costLimit`; operations over a WebSocket are checked with the same function.
 */
export function costRule({
  schema,
  maxCost,
  maxTokens,
  unpagedLists,
}: CostLimitOptions): CostCheck {
  const documents = new DocumentCache(maxTokens);
  return async (operations) => {
    const sizes = new Map<string, number>();
    const requestCost = () => {
      const unknownSizes = new Set<string>();
      const listSize = (coordinate: string) => {
        const size = sizes.get(coordinate);
        if (size === undefined && coordinate in unpagedLists) unknownSizes.add(coordinate);
        return size;
      };
      let cost = 0;
      for (const params of operations) cost += paramsCost(params, listSize);
      return { cost, unknownSizes };
    };
    const paramsCost = (params: GraphQLParams, listSize: (c: string) => number | undefined) => {
      const document = typeof params.query === 'string' ? documents.get(params.query) : null;
      if (!document) return 0;
      const variables = isRecord(params.variables) ? params.variables : {};
      return operationCost({
        schema,
        document,
        operationName: typeof params.operationName === 'string' ? params.operationName : null,
        variables,
        listSize,
      });
    };

    let { cost, unknownSizes } = requestCost();
    if (unknownSizes.size > 0) {
      // Counted only for the requests that ask for an unpaged list.
      for (const coordinate of unknownSizes)
        sizes.set(coordinate, await (unpagedLists[coordinate] as () => Promise<number>)());
      ({ cost } = requestCost());
    }
    if (cost > maxCost) {
      throw tooComplex(
        `This request could return about ${cost} fields, more than the limit of ${maxCost}; ` +
          'ask for smaller pages (first) or fewer nested lists',
      );
    }
  };
}

/** The cost rule on HTTP requests, once their operations are parsed from the request. */
export function costLimit(check: CostCheck): Plugin {
  return {
    onRequestParse: () => ({
      async onRequestParseDone({ requestParserResult }) {
        await check(
          Array.isArray(requestParserResult) ? requestParserResult : [requestParserResult],
        );
      },
    }),
  };
}
