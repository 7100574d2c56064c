import { createYoga } from 'graphql-yoga';
import {
  anonymous,
  compiledQueries,
  createContext,
  type Database,
  type GraphQLContext,
  ListItemBudget,
  readOnly,
  type SharedReads,
  Subscriptions,
  schema,
} from './product-parts.js';

export interface GraphQLFloorOptions {
  database: Database;
  /** The product's coalesced reads by id, one instance per process as in the product. */
  shared: SharedReads;
  /** The list-item budget of one request (the product's default, GRAPHQL_MAX_LIST_ITEMS). */
  listItems: number;
}

/**
 * The GraphQL floor: a bare `createYoga({ schema })` serving the product's own schema on the
 * product's own Prisma client, with the product's per-request context (fresh loaders over the
 * shared reads, a list-item budget). No plugin of the product's except the compiled queries
 * (graphql-jit), so that floor and product execute alike; no cache, no auth (every caller is
 * anonymous), no Hono, and no limits: Yoga's own default body limit (25 MB) is off too, as in the
 * product. That limit streams every body through a counter: with it on, this floor costs about
 * 2.5× the CPU per `pet(id)` (bench/rounds.md in git history, _The floor's settings matter_).
 */
export function createGraphQLFloor({ database, shared, listItems }: GraphQLFloorOptions) {
  const domain = {
    db: database.prisma,
    sql: database,
    dialect: database.dialect,
    viewer: anonymous,
    changes: readOnly,
  };
  // Subscriptions are not served here; the context type wants a holder anyway.
  const subscriber = { client: 'floor', subscriptions: new Subscriptions(1) };
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    context: () => createContext(domain, shared, new ListItemBudget(listItems), subscriber),
    plugins: [compiledQueries(schema)],
    // No limits: the product turns Yoga's own body limit off as well.
    maxRequestBodySize: false,
  });
}
