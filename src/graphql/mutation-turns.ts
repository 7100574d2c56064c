import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';

/**
 * Gives the request's time limit a chance between the mutations of a document. They run one
 * after another, and a write on SQLite is synchronous work and promises only: without a turn of
 * the event loop between two mutations, the time limit's timer (src/limits/time-limit.ts) could not
 * fire until every one had run, and the rest would never be stopped. Each mutation field first
 * waits one turn (`setImmediate`: a timer that is due runs before it), then runs only if its
 * request has not been abandoned meanwhile.
 */
export function mutationsYieldingTurns(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.MUTATION_ROOT_FIELD]: (field) => {
      const resolve: GraphQLFieldResolver<unknown, { deadline?: { signal: AbortSignal } }> =
        field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        async resolve(source, args, context, info) {
          if (context.deadline) {
            await new Promise((turn) => setImmediate(turn));
            context.deadline.signal.throwIfAborted();
          }
          return resolve(source, args, context, info);
        },
      };
    },
  });
}
