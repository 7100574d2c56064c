import type { SharedReads } from '../db/shared-reads.js';
import type { DomainContext } from '../domain/context.js';
import { ListItemBudget } from './list-items.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { Subscriber } from './subscriptions.js';

/** Per-operation state shared by GraphQL resolvers: nothing here outlives the request. */
export interface GraphQLContext {
  readonly domain: DomainContext;
  /** Fresh for each operation: reads by id and relations, batched and cached for it alone. */
  readonly loaders: Loaders;
  /** List items this HTTP request may still resolve, shared by the operations of a batch. */
  readonly listItems: ListItemBudget;
  /** Who would hold the operation's subscription, for the per-client bound. */
  readonly subscriber: Subscriber;
  /**
   * A subscription's next event starts its reads afresh (new loaders, a new list-item budget), so
   * an event never sees what an earlier one read. Called by the event stream before it delivers.
   */
  nextEvent(): void;
}

export function createContext(
  domain: DomainContext,
  shared: SharedReads,
  listItems: ListItemBudget,
  subscriber: Subscriber,
): GraphQLContext {
  return {
    domain,
    loaders: createLoaders(domain, shared),
    listItems,
    subscriber,
    // `this`: the server copies these properties into the context object it hands to resolvers.
    nextEvent(this: { loaders: Loaders; listItems: ListItemBudget }) {
      this.loaders = createLoaders(domain, shared);
      this.listItems = new ListItemBudget(listItems.limit);
    },
  };
}
