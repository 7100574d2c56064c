import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/kit/context.js';

/** How long an event's result stays shared once computed: one fan-out takes far less. */
const SHARED_MS = 1000;

/**
 * Who sees the same result of an event: the same document, operation and variables, for a caller
 * with the same scopes (no field depends on more of the caller than that).
 */
function sharingKey(args: ExecutionArgs, ctx: GraphQLContext): string {
  const { viewer } = ctx.domain;
  const scopes = [...viewer.scopes].sort().join(' ');
  return `${args.operationName ?? ''}\n${JSON.stringify(args.variableValues ?? {})}\n${viewer.authenticated}\n${scopes}`;
}

/**
 * Subscriptions that watch the same thing the same way share each event's result: the first of
 * them to deliver an event executes the document on it, and the others, a moment later, get that
 * result instead of executing it again (a thousand subscribers of one write executed the same
 * document a thousand times). Results are kept per event cursor and sharing key for a second.
 * Everything else is GraphQL's own subscription algorithm: the source stream from the field's
 * `subscribe`, each event executed with it as the root value, one at a time.
 *
 * Registered first: plugins that wrap the subscribe function (tracing) wrap this one.
 */
export function sharedEventResults(): Plugin<GraphQLContext> {
  const shared = new WeakMap<DocumentNode, Map<string, Promise<ExecutionResult>>>();

  const resultOf = (args: ExecutionArgs, ctx: GraphQLContext, event: unknown) => {
    const run = () => execute({ ...args, rootValue: event }) as Promise<ExecutionResult>;
    // Only events carry a cursor: the error that ends a stream is its own.
    const cursor = ctx.eventCursor;
    if (cursor === undefined) return run();
    let results = shared.get(args.document);
    if (!results) {
      results = new Map();
      shared.set(args.document, results);
    }
    const key = `${cursor}\n${sharingKey(args, ctx)}`;
    let result = results.get(key);
    if (!result) {
      result = Promise.resolve(run());
      results.set(key, result);
      const forget = () => setTimeout(() => results.delete(key), SHARED_MS).unref();
      result.then(forget, forget);
    }
    return result;
  };

  return {
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(async (args) => {
        const source = await createSourceEventStream(args);
        if (!isAsyncIterable(source)) return source;
        const events = source[Symbol.asyncIterator]();
        const ctx = args.contextValue as GraphQLContext;
        const results: AsyncIterableIterator<ExecutionResult> = {
          async next() {
            const next = await events.next();
            if (next.done) return next;
            return { done: false, value: await resultOf(args, ctx, next.value) };
          },
          async return() {
            await events.return?.();
            return { done: true, value: undefined };
          },
          async throw(error) {
            await events.return?.();
            throw error;
          },
          [Symbol.asyncIterator]() {
            return results;
          },
        };
        return results;
      });
    },
  };
}
