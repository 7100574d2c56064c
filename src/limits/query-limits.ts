import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../config.js';
import { tooComplex } from '../errors/graphql.js';

/**
 * Marks an armor rejection with the contract's code before armor throws it from validation, with
 * the status rule of every GraphQL request error (see `refuseOperation`).
 */
function markTooComplex(_context: unknown, error: GraphQLError) {
  // Armor words its refusals as parse errors; they are not.
  error.message = error.message.replace(/^Syntax Error: /, '');
  Object.assign(error.extensions, tooComplex(error.message).extensions);
}

const onReject = [markTooComplex];

/**
 * Depth, alias and directive limits (graphql-armor). The token limit is the parser's
 * (`parseDocument`), the cost limit `costLimit` (src/cost/rule.ts).
 */
export function queryLimits(limits: Limits): Plugin {
  return EnvelopArmorPlugin({
    maxDepth: { n: limits.graphqlDepth, onReject },
    maxAliases: { n: limits.graphqlAliases, onReject },
    // Armor's token counter wraps the lexer in a Proxy: a trap on every read of the lexer, and a
    // closure per token.
    maxTokens: { enabled: false },
    costLimit: { enabled: false },
    maxDirectives: { onReject },
    // Suggestions help explorers in GraphiQL; the schema is public anyway.
    blockFieldSuggestion: { enabled: false },
  }) as Plugin;
}
