import type { Database } from './db/client.js';
import { anonymous, type DomainContext } from './domain/context.js';

/** Per-request state shared by GraphQL resolvers: nothing here outlives the request. */
export interface GraphQLContext {
  readonly domain: DomainContext;
  readonly requestId: string;
}

export function createContext(database: Database, requestId: string): GraphQLContext {
  return { domain: { db: database.prisma, viewer: anonymous }, requestId };
}
