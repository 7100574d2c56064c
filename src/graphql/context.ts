import type { Database } from '../db/client.js';
import type { DomainContext, Viewer } from '../domain/context.js';
import type { ListItemBudget } from './list-items.js';

/** Per-request state shared by GraphQL resolvers: nothing here outlives the request. */
export interface GraphQLContext {
  readonly domain: DomainContext;
  readonly requestId: string;
  /** List items this HTTP request may still resolve, shared by the operations of a batch. */
  readonly listItems: ListItemBudget;
}

export function createContext(
  database: Database,
  requestId: string,
  viewer: Viewer,
  listItems: ListItemBudget,
): GraphQLContext {
  return { domain: { db: database.prisma, viewer }, requestId, listItems };
}
