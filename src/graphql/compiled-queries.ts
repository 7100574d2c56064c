import { type DocumentNode, execute, type GraphQLSchema, getVariableValues } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { type Streamed, streamedFormat } from '../incremental/format.js';
import { streamsIn } from '../incremental/plugin.js';
import { type IncrementalSite, planOf } from './plan/index.js';
import { operationOf } from './plan/operation.js';

interface Compiled {
  query: CompiledQuery | undefined;
  /** Its `@defer` fragments and `@stream` fields: none for nearly every query. */
  incremental: readonly IncrementalSite[];
}

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
 * - a document graphql-jit cannot compile;
 * - a query with `@defer` or `@stream` for a client that takes a streamed answer (`Accept`, or
 *   any WebSocket: src/incremental/format.ts): the standard executor delivers it in parts. For any other client
 *   it runs compiled like any query, the directives ignored (graphql-jit, like graphql-js 16,
 *   reads only `@skip`/`@include`): one complete answer, the same as without them.
 * The parse cache (src/graphql/documents.ts) hands the same document object for the same text, so the WeakMap holds.
 */
export function compiledQueries(schema: GraphQLSchema): Plugin {
  const compiled = new WeakMap<DocumentNode, Map<string, Compiled>>();
  const compiledFor = (document: DocumentNode, operationName: string | undefined) => {
    let byName = compiled.get(document);
    if (!byName) {
      byName = new Map();
      compiled.set(document, byName);
    }
    const key = operationName ?? '';
    let entry = byName.get(key);
    if (!entry) {
      const result = compileQuery(schema, document, operationName);
      entry = {
        query: isCompiledQuery(result) ? result : undefined,
        incremental: planOf(schema, document, operationName)?.incremental ?? [],
      };
      byName.set(key, entry);
    }
    return entry;
  };
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => {
        const operation = operationOf(args.document, args.operationName);
        if (operation?.operation !== 'query') return executeFn(args);
        const variables = args.variableValues ?? {};
        const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
        const entry = coerced.errors
          ? undefined
          : compiledFor(args.document, args.operationName ?? undefined);
        if (entry && entry.incremental.length > 0) {
          const context = args.contextValue as { request?: Request; streamed?: Streamed };
          const { request } = context;
          // Over a WebSocket the transport says (src/live/websocket.ts); over HTTP, `Accept`.
          const format = context.streamed ?? streamedFormat(request?.headers.get('accept'));
          if (format) {
            streamsIn(request ?? context, format, entry.incremental, coerced.coerced ?? variables);
            return executeFn(args);
          }
          // The standard executor would answer in parts: graphql-js's ignores the directives.
          if (!entry.query) return execute(args);
        }
        if (!entry?.query) return executeFn(args);
        return entry.query.query(args.rootValue, args.contextValue, variables);
      });
    },
  };
}
