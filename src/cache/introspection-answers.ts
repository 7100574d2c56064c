import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { planOf } from '../graphql/plan/index.js';
import type { SeriesCounter } from '../observability/series.js';

/**
 * The key of an answer: its document, operation name and declared variables' values. Introspection
 * takes only names and flags, so a value of any other kind (which execution refuses anyway) makes
 * no key; the request's other variables, however large or deep, are not read.
 */
function keyOf(
  document: number,
  operationName: string | null | undefined,
  names: readonly string[],
  values: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  let key = `${document}\u0000${operationName ?? ''}`;
  for (const name of names) {
    const value = values?.[name];
    if (value !== undefined && value !== null && typeof value === 'object') return undefined;
    key += `\u0000${name}=${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
  }
  return key;
}

/** What an answer is estimated to hold on the heap: its objects take about four times its JSON. */
const answerBytes = (key: string, json: string) => 2 * key.length + 4 * json.length;

export interface IntrospectionAnswersOptions {
  schema: GraphQLSchema;
  /** What the answers kept may take, in estimated heap bytes (0: none is kept). */
  maxBytes: number;
  /** Counts each introspection-only query by where its answer came from (`memory`, `executed`). */
  answers: SeriesCounter<'source'>;
}

/**
 * The answers of introspection-only queries (GraphiQL's and code generators' schema fetch), kept
 * by document, operation name and variables and given again without executing: a burst of the
 * same introspection costs one execution. They are priced and charged as before (the cost rule,
 * the budget); only the execution is saved. Bounded in estimated bytes (the least recently used go
 * first; one answer over a quarter of the bound is never kept), and keyed by the parsed document,
 * which the parse cache hands again for the same text. An answer with errors is not kept.
 */
export function introspectionAnswers({
  schema,
  maxBytes,
  answers,
}: IntrospectionAnswersOptions): Plugin {
  const largest = Math.floor(maxBytes / 4);
  const kept = new LRUCache<string, ExecutionResult>({
    max: 10_000,
    maxSize: Math.max(1, maxBytes),
  });
  // A number per document object: the key holds no document, and one the parse cache let go
  // leaves only entries that no request finds again, which the bound removes in turn.
  const documentIds = new WeakMap<DocumentNode, number>();
  let nextId = 0;
  const idOf = (document: DocumentNode) => {
    let id = documentIds.get(document);
    if (id === undefined) {
      id = nextId++;
      documentIds.set(document, id);
    }
    return id;
  };
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (maxBytes === 0) return;
      // Asks for nothing but introspection: its answer depends on the document, operation name
      // and the values of the variables it declares alone (the schema does not change).
      const plan = planOf(schema, args.document, args.operationName);
      if (plan?.type !== 'query' || !plan.introspectionOnly) return;
      const names = plan.variables;
      const key = keyOf(idOf(args.document), args.operationName, names, args.variableValues);
      if (key === undefined) return;
      const answer = kept.get(key);
      if (answer) {
        answers.inc({ source: 'memory' });
        setExecuteFn(() => ({ ...answer }));
        return;
      }
      answers.inc({ source: 'executed' });
      setExecuteFn(async (executeArgs) => {
        const result = await executeFn(executeArgs);
        if (!isAsyncIterable(result) && !result.errors && result.data) {
          const bytes = answerBytes(key, JSON.stringify(result.data));
          if (bytes <= largest) kept.set(key, { data: result.data }, { size: bytes });
        }
        return result;
      });
    },
  };
}
