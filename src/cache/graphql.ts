import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  type DocumentNode,
  defaultFieldResolver,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  getNamedType,
} from 'graphql';
import { handleStreamOrSingleExecutionResult, isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Cacheable } from '../http/env.js';
import { collecting, type Payload2022 } from '../incremental/merge.js';
import { ANY, type Entity, entityTag, listTag, type Tag } from './tags.js';

/** The object types that are entities, with the field that identifies one. */
const entityTypes: Record<string, { entity: Entity; key: 'id' | 'petId' }> = {
  Pet: { entity: 'pet', key: 'id' },
  Category: { entity: 'category', key: 'id' },
  InventoryItem: { entity: 'inventory', key: 'petId' },
  Order: { entity: 'order', key: 'id' },
};

/** The object types that hold entities of one kind: a connection depends on which exist. */
const listTypes: Record<string, Entity> = {
  PetConnection: 'pet',
  InventoryItemConnection: 'inventory',
  OrderConnection: 'order',
};

/** Object types that hold no data of their own. */
const neutralTypes = new Set(['Query', 'PageInfo', 'PetEdge', 'InventoryItemEdge', 'OrderEdge']);

/** Where an operation's resolvers note the entities they return (only on a cacheable read). */
const noted = Symbol('cacheTags');

interface TaggedContext {
  [noted]?: Set<Tag>;
}

/**
 * What the tags read of an operation, from its plan (src/graphql/plan/): its type, and the object
 * types its fields return, each with whether as a list.
 */
export interface TaggedOperation {
  readonly type: string;
  readonly returned: readonly { readonly name: string; readonly list: boolean }[];
}

/**
 * The tags an operation has before it runs: every list it asks for (`pets`, `categories`,
 * `Category.pets`...) depends on which entities of that kind exist, whatever the result holds, and
 * a type the cache knows nothing of depends on anything.
 */
function operationTags({ returned }: TaggedOperation): Set<Tag> {
  const tags = new Set<Tag>();
  for (const { name, list } of returned) {
    const listed = listTypes[name] ?? (list ? entityTypes[name]?.entity : undefined);
    if (listed) tags.add(listTag(listed));
    else if (!entityTypes[name] && !neutralTypes.has(name)) tags.add(ANY);
  }
  return tags;
}

/** Notes what a resolver returned: each entity by its id, and a missing one by its kind. */
function note(tags: Set<Tag>, entity: Entity, key: 'id' | 'petId', value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) note(tags, entity, key, item);
  } else if (value == null) {
    // Found nothing: creating such an entity would change the answer.
    tags.add(listTag(entity));
  } else {
    tags.add(entityTag(entity, String((value as Record<string, unknown>)[key])));
  }
}

/**
 * The schema with every field that returns entities noting them (while an operation's answer may
 * be cached), so that a cached answer is tagged with the ids of exactly the entities it shows.
 * Only for a server with the cache on: it costs a function call per such field.
 */
export function schemaNotingEntities(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field) => {
      const shown = entityTypes[getNamedType(field.type).name];
      if (!shown) return field;
      const resolve: GraphQLFieldResolver<unknown, TaggedContext> =
        field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve(source, args, context, info) {
          const tags = context[noted];
          const value = resolve(source, args, context, info);
          if (!tags) return value;
          if (value instanceof Promise) {
            return value.then((resolved) => {
              note(tags, shown.entity, shown.key, resolved);
              return resolved;
            });
          }
          note(tags, shown.entity, shown.key, value);
          return value;
        },
      };
    },
  });
}

/** What the operations of one HTTP request have shown so far. */
interface RequestTags {
  tags: Set<Tag>;
  executed: number;
  clean: boolean;
}

/** Where a request's tags wait for its answer. */
const requestTags = new WeakMap<Request, RequestTags>();

/** The part of the server context this plugin reads: how to tell the cache, on a public read. */
interface CacheableServerContext {
  cacheable?: Cacheable | undefined;
  request?: Request;
}

/**
 * Tells the response cache what a GraphQL answer holds, when every operation of the request was a
 * query that ran without an error: the tags of its documents and of the entities its resolvers
 * returned (see `schemaNotingEntities`), and its results as answered (with their cost reports,
 * which demand control attached before; nothing after this changes a result without errors).
 * Anything else (a mutation, an error, a refusal before execution) leaves the answer uncached.
 * What an operation's fields return is read from its plan (`planOf`), made once per document.
 */
export function cacheTagsPlugin(
  planOf: (document: DocumentNode, operationName?: string | null) => TaggedOperation | undefined,
): Plugin<CacheableServerContext> {
  return {
    onExecute({ args }) {
      const { cacheable, request } = args.contextValue;
      if (!cacheable || !request) return;
      let state = requestTags.get(request);
      if (!state) {
        state = { tags: new Set(), executed: 0, clean: true };
        requestTags.set(request, state);
      }
      const plan = planOf(args.document, args.operationName);
      if (plan?.type !== 'query') {
        state.clean = false;
        return;
      }
      const tags = operationTags(plan);
      // In place, not through `extendContext` (an `Object.assign`; see src/graphql/context.ts).
      (args.contextValue as { [noted]?: Set<Tag> })[noted] = tags;
      return {
        onExecuteDone: (payload) =>
          handleStreamOrSingleExecutionResult(payload, ({ result }) => {
            state.executed++;
            if (result.errors?.length) state.clean = false;
            for (const tag of tags) state.tags.add(tag);
          }),
      };
    },
    onResultProcess({ request, result, serverContext, setResult }) {
      const state = requestTags.get(request);
      if (!state?.clean) return;
      const { cacheable } = serverContext as CacheableServerContext;
      if (isAsyncIterable(result)) {
        // A query delivered in parts (@defer, @stream): kept whole once its last part has gone
        // without an error, never a part (src/incremental/).
        if (!cacheable) return;
        const kept = collecting(result as AsyncIterable<Payload2022>, (complete) => {
          if (state.clean && complete.errors.length === 0 && complete.data)
            cacheable([...state.tags], complete.result());
          return undefined;
        });
        setResult(kept as never);
        return;
      }
      const operations = Array.isArray(result) ? result.length : 1;
      if (state.executed === operations) cacheable?.([...state.tags], result);
    },
  };
}
