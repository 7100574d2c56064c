import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/kit/context.js';

/**
 * Puts each subscription event's cursor in its result's `extensions.cursor`, on every transport,
 * whatever the document selects: a client resumes from it with the field's `after` argument, and
 * the SSE transport writes it as the event's `id:` (src/live/sse.ts). The event stream sets it on
 * the context just before the event is executed; events are executed one at a time. This is for a
 * subscription reading its own stream; a fan-out group (src/live/fan-out.ts) puts the cursor on
 * the result it writes to all its members itself.
 */
export function eventCursors(): Plugin<GraphQLContext> {
  const withCursor = new WeakMap<ExecutionResult, ExecutionResult>();
  return {
    onSubscribe() {
      return {
        onSubscribeResult({ args }) {
          return {
            onNext({ result, setResult }) {
              const cursor = args.contextValue.eventCursor;
              if (cursor === undefined) return;
              args.contextValue.eventCursor = undefined;
              let next = withCursor.get(result);
              if (next?.extensions?.cursor !== cursor) {
                next = { ...result, extensions: { ...result.extensions, cursor } };
                withCursor.set(result, next);
              }
              setResult(next);
            },
          };
        },
      };
    },
  };
}
