import { type DocumentNode, type GraphQLSchema, getVariableValues } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { operationOf } from './plan/operation.js';

/**
 * Queries run as JavaScript compiled for their document (graphql-jit), once per document and
 * operation: the executor's per-field interpretation was the largest cost of a list after the
 * database (bench/rounds.md in git history). Everything else keeps the standard executor, whose behaviour the
 * error tests pin down:
 * - mutations and subscriptions (a mutation stops at the time limit through the executor's signal;
 *   a compiled query does not watch the signal and reads to its end, which the cost limit bounds,
 *   while the client already has its 503 TIMEOUT);
 * - a query whose variables do not coerce: graphql-js's errors carry what the contract needs
 *   (locations, the request-error status), graphql-jit's do not;
 * - a document graphql-jit cannot compile.
 * The parse cache (src/graphql/documents.ts) hands the same document object for the same text, so the WeakMap holds.
 */
export function compiledQueries(schema: GraphQLSchema): Plugin {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | undefined>>();
  const compiledFor = (document: DocumentNode, operationName: string | undefined) => {
    let byName = compiled.get(document);
    if (!byName) {
      byName = new Map();
      compiled.set(document, byName);
    }
    const key = operationName ?? '';
    if (!byName.has(key)) {
      const result = compileQuery(schema, document, operationName);
      byName.set(key, isCompiledQuery(result) ? result : undefined);
    }
    return byName.get(key);
  };
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => {
        const operation = operationOf(args.document, args.operationName);
        if (operation?.operation !== 'query') return executeFn(args);
        const variables = args.variableValues ?? {};
        const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
        const query = coerced.errors
          ? undefined
          : compiledFor(args.document, args.operationName ?? undefined);
        if (!query) return executeFn(args);
        return query.query(args.rootValue, args.contextValue, variables);
      });
    },
  };
}
