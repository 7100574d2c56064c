import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { GraphQLError } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Limits } from '../config.js';
import { errorStatus } from '../domain/errors.js';

/**
 * Marks an armor rejection with the contract's code before armor throws it from validation; `http`
 * makes it a 400 request error like any other invalid document.
 */
function tooComplex(_context: unknown, error: GraphQLError) {
  Object.assign(error.extensions, {
    code: 'QUERY_TOO_COMPLEX',
    status: errorStatus.QUERY_TOO_COMPLEX,
    http: { status: 400, spec: true },
  });
}

const onReject = [tooComplex];

/** More operations in one batched request than allowed: QUERY_TOO_COMPLEX, before any runs. */
export function batchLimit(limit: number): Plugin {
  return {
    onRequestParse: () => ({
      onRequestParseDone({ requestParserResult }) {
        if (Array.isArray(requestParserResult) && requestParserResult.length > limit) {
          throw createGraphQLError(`A batch may hold at most ${limit} operations`, {
            extensions: {
              code: 'QUERY_TOO_COMPLEX',
              status: errorStatus.QUERY_TOO_COMPLEX,
              http: { status: 400 },
            },
          });
        }
      },
    }),
  };
}

/** Depth, alias, token and cost limits (graphql-armor, its default cost weights). */
export function queryLimits(limits: Limits): Plugin {
  return EnvelopArmorPlugin({
    maxDepth: { n: limits.graphqlDepth, onReject },
    maxAliases: { n: limits.graphqlAliases, onReject },
    maxTokens: { n: limits.graphqlTokens, onReject },
    costLimit: { maxCost: limits.graphqlCost, onReject },
    maxDirectives: { onReject },
    // Suggestions help explorers in GraphiQL; the schema is public anyway.
    blockFieldSuggestion: { enabled: false },
  }) as Plugin;
}
