import { createHash } from 'node:crypto';
import type { Cache as EnvelopCache } from '@envelop/response-cache';
import { useResponseCache } from '@graphql-yoga/plugin-response-cache';
import {
  type DocumentNode,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  getOperationAST,
  isListType,
  isObjectType,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Entity } from '../http/response-cache.js';
import {
  ANY,
  entityTag,
  isCacheable,
  listTag,
  type ResponseStore,
  type Tag,
} from '../http/response-cache.js';
import type { Metrics } from '../observability/metrics.js';

/** The entity each GraphQL object type shows, for eviction; other object types evict on any write. */
const entityOfType: Record<string, Entity> = {
  Pet: 'pet',
  PetConnection: 'pet',
  PetEdge: 'pet',
  Category: 'category',
  InventoryItem: 'inventory',
  InventoryItemConnection: 'inventory',
  InventoryItemEdge: 'inventory',
  Order: 'order',
  OrderConnection: 'order',
  OrderEdge: 'order',
};

/** Object types that hold no data of their own. */
const neutralTypes = new Set(['Query', 'PageInfo']);

/**
 * The tags of a document, known before it runs: every list it asks for (`pets`, `categories`,
 * `Category.pets`...) depends on which entities of that kind exist, whatever the result holds.
 */
function documentTags(schema: GraphQLSchema, document: DocumentNode): Tag[] {
  const tags = new Set<Tag>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const type = typeInfo.getType();
        if (!type) return;
        const named = getNamedType(type);
        const entity = entityOfType[named.name];
        const list = isListType(getNullableType(type)) || named.name.endsWith('Connection');
        if (entity && list) tags.add(listTag(entity));
      },
    }),
  );
  return [...tags];
}

/** The tags of the entities a result holds, as the response-cache plugin collected them. */
function entityTags(
  schema: GraphQLSchema,
  entities: Iterable<{ typename: string; id?: number | string }>,
): Tag[] {
  const tags: Tag[] = [];
  for (const { typename, id } of entities) {
    if (neutralTypes.has(typename)) continue;
    const entity = entityOfType[typename];
    if (entity) {
      // No id: a connection or edge, or a field of this type that came back null or empty.
      tags.push(id == null ? listTag(entity) : entityTag(entity, id));
    } else if (isObjectType(schema.getType(typename))) {
      tags.push(ANY);
    }
    // Scalars and enums (named for null fields) hold no entity.
  }
  return tags;
}

interface CacheAdapterOptions {
  schema: GraphQLSchema;
  store: ResponseStore;
}

/**
 * The response-cache plugin's storage, backed by the store both edges share. It records when
 * each lookup missed (the store's generation), so that a result whose reads raced a write is not
 * stored, and adds the document's list tags to the entities the plugin collected.
 */
function cacheAdapter({ schema, store }: CacheAdapterOptions) {
  const tagsByDocument = new LRUCache<string, Tag[]>({ max: 1000 });
  const documentByKey = new LRUCache<string, string>({ max: 10_000 });
  const missedAt = new LRUCache<string, number>({ max: 10_000 });
  let uncachedKeys = 0;

  const tagsOf = (documentString: string) => {
    let tags = tagsByDocument.get(documentString);
    if (!tags) {
      try {
        tags = documentTags(schema, parse(documentString, { noLocation: true }));
      } catch {
        tags = [ANY];
      }
      tagsByDocument.set(documentString, tags);
    }
    return tags;
  };

  const cache: EnvelopCache = {
    async get(key) {
      const { value, generation } = await store.lookup(key);
      if (value !== undefined) return value as Awaited<ReturnType<EnvelopCache['get']>>;
      // The plugin looks up twice on a miss (before parsing, and before executing): keep the first.
      const earlier = missedAt.get(key);
      if (earlier === undefined || earlier > generation) missedAt.set(key, generation);
      return undefined;
    },
    async set(key, result, entities) {
      const since = missedAt.get(key);
      missedAt.delete(key);
      const documentString = documentByKey.get(key);
      if (since === undefined || documentString === undefined) return;
      const tags = [...entityTags(schema, entities), ...tagsOf(documentString)];
      await store.set(key, result, tags, JSON.stringify(result).length, since);
    },
    // Eviction comes from the change feed (invalidateViaMutation is off), never from here.
    invalidate() {},
  };

  /** The plugin's key: the document, operation name and variables (sessions are never cached). */
  const buildKey = ({
    documentString,
    operationName,
    variableValues,
  }: {
    documentString: string;
    operationName?: string | null;
    variableValues?: Record<string, unknown> | null;
  }) => {
    let variables: string;
    try {
      variables = JSON.stringify(variableValues ?? {});
    } catch {
      // Variables too deep to write (their own error comes later): a key nothing is stored under.
      return `uncached:${++uncachedKeys}`;
    }
    const key = createHash('sha256')
      .update(documentString)
      .update('\0')
      .update(operationName ?? '')
      .update('\0')
      .update(variables)
      .digest('base64url');
    documentByKey.set(key, documentString);
    return key;
  };

  return { cache, buildKey };
}

export interface ResponseCachePluginOptions {
  schema: GraphQLSchema;
  store: ResponseStore;
  metrics: Metrics;
}

const servedFromCache = Symbol.for('servedFromResponseCache');

/**
 * GraphQL's side of the response cache: Yoga's response-cache plugin (keys, the entities of each
 * result, answering a hit before parsing) over the shared store, for requests without a token.
 * Evictions come from the change feed, so REST writes evict GraphQL responses and the other way
 * round. Results with errors are never stored.
 */
export function graphqlResponseCache({
  schema,
  store,
  metrics,
}: ResponseCachePluginOptions): Plugin[] {
  const { cache, buildKey } = cacheAdapter({ schema, store });
  const counting: Plugin = {
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (
        request &&
        isCacheable(request) &&
        getOperationAST(args.document, args.operationName)?.operation === 'query'
      ) {
        metrics.cacheMisses.inc({ edge: 'graphql' });
      }
    },
    onResultProcess({ result }) {
      for (const one of Array.isArray(result) ? result : [result]) {
        if ((one as { [servedFromCache]?: boolean })[servedFromCache])
          metrics.cacheHits.inc({ edge: 'graphql' });
      }
    },
  };
  return [
    useResponseCache({
      cache,
      session: () => null,
      enabled: (request) => isCacheable(request),
      buildResponseCacheKey: buildKey,
      // Writes are evicted through the change feed, whichever edge made them.
      invalidateViaMutation: false,
      idFields: ['id', 'petId'],
      includeExtensionMetadata: false,
    }) as Plugin,
    counting,
  ];
}
