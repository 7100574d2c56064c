import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';

/**
 * Puts each subscription event's cursor in its result's `extensions.cursor`, on every transport,
 * whatever the document selects: a client resumes from it with the field's `after` argument, and
 * the SSE transport writes it as the event's `id:` (src/graphql/sse.ts). The event stream sets it on
 * the context just before the event is executed; events are executed one at a time.
 */
export const eventCursors: Plugin<GraphQLContext> = {
  onSubscribe() {
    return {
      onSubscribeResult({ args }) {
        return {
          onNext({ result, setResult }) {
            const cursor = args.contextValue.eventCursor;
            if (cursor === undefined) return;
            args.contextValue.eventCursor = undefined;
            setResult({ ...result, extensions: { ...result.extensions, cursor } });
          },
        };
      },
    };
  },
};
