import type { Database } from './db/client.js';
import type { DomainContext, Viewer } from './domain/context.js';

/** Per-request state shared by GraphQL resolvers: nothing here outlives the request. */
export interface GraphQLContext {
  readonly domain: DomainContext;
  readonly requestId: string;
}

export function createContext(
  database: Database,
  requestId: string,
  viewer: Viewer,
): GraphQLContext {
  return { domain: { db: database.prisma, viewer }, requestId };
}
