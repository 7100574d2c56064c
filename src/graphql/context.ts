import type { DomainContext } from '../domain/context.js';
import type { ListItemBudget } from './list-items.js';
import { createLoaders, type Loaders, type SharedReads } from './loaders.js';

/** Per-operation state shared by GraphQL resolvers: nothing here outlives the request. */
export interface GraphQLContext {
  readonly domain: DomainContext;
  /** Fresh for each operation: reads by id and relations, batched and cached for it alone. */
  readonly loaders: Loaders;
  /** List items this HTTP request may still resolve, shared by the operations of a batch. */
  readonly listItems: ListItemBudget;
}

export function createContext(
  domain: DomainContext,
  shared: SharedReads,
  listItems: ListItemBudget,
): GraphQLContext {
  return { domain, loaders: createLoaders(domain, shared), listItems };
}
