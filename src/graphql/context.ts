import type { SharedReads } from '../db/shared-reads.js';
import type { DomainContext } from '../domain/context.js';
import type { GraphQLContext, SubscriptionSource } from './kit/context.js';
import { ListItemBudget } from './kit/list-items.js';
import type { Loaders } from './kit/loaders.js';
import type { Subscriber } from './kit/subscriptions.js';
import { createLoaders } from './loaders.js';

/**
 * What resolvers share in one operation, written property by property onto `target`: in the server,
 * the context object Yoga made for the operation. Returned instead for envelop to `Object.assign`
 * onto it, these came after some fifteen others, and V8 turns an object that gets more than twelve
 * properties outside itself by such a copy into a dictionary: every later read of the context, by
 * every plugin and resolver, was a hash lookup.
 */
export function createContext(
  domain: DomainContext,
  shared: SharedReads,
  listItems: ListItemBudget,
  subscriber: Subscriber,
  source?: SubscriptionSource,
  target: object = {},
): GraphQLContext {
  const context = target as { -readonly [K in keyof GraphQLContext]: GraphQLContext[K] };
  context.domain = domain;
  context.loaders = createLoaders(domain, shared);
  context.listItems = listItems;
  context.subscriber = subscriber;
  context.source = source;
  // `this`: the context resolvers get, which may be a copy of this one (through Yoga's `context`).
  context.nextEvent = function nextEvent(this: { loaders: Loaders; listItems: ListItemBudget }) {
    this.loaders = createLoaders(domain, shared);
    this.listItems = new ListItemBudget(listItems.limit);
  };
  return context;
}
