import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../config.js';
import { errorStatus } from '../domain/errors.js';

/** Marks an armor rejection with the contract's code before it is reported. */
function tooComplex(_context: unknown, error: GraphQLError) {
  Object.assign(error.extensions, {
    code: 'QUERY_TOO_COMPLEX',
    status: errorStatus.QUERY_TOO_COMPLEX,
  });
}

const onReject = [tooComplex];

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
