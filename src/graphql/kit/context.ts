import type { EventDelivery } from '../../changes/delivery.js';
import type { DomainContext } from '../../domain/context.js';
import type { ListItemBudget } from './list-items.js';
import type { Loaders } from './loaders.js';
import type { Subscriber } from './subscriptions.js';

/** Where a subscription's events come from, and what its client's request says. */
export interface SubscriptionSource {
  /** The outbox's delivery in this process. */
  readonly events: EventDelivery;
  /**
   * The HTTP request of a subscription over SSE: its `Last-Event-ID` (the browser resends it on
   * reconnecting; it wins over `after`), and its signal, aborted when the client's connection
   * closes (the subscription ends at once). Read only by subscriptions: other operations never
   * pay for its headers or its signal.
   */
  readonly request?: Request | undefined;
  /**
   * The transport closes the connection when the token expires (WebSocket, 4403): the stream then
   * only makes sure that no event follows, instead of ending with an error event of its own.
   */
  readonly transportEndsAtExpiry?: boolean;
}

/**
 * What GraphQL resolvers share in one operation. The loaders are new for each operation (and for
 * each event of a subscription) and the list-item budget for each HTTP request, so nothing they
 * read is seen by another request; `domain` holds the app's own long-lived parts (the database
 * handle, the change feed) beside the request's viewer, and a subscription keeps its context for
 * as long as it is open.
 */
export interface GraphQLContext {
  readonly domain: DomainContext;
  /** Fresh for each operation: reads by id and relations, batched and cached for it alone. */
  readonly loaders: Loaders;
  /** List items this HTTP request may still resolve, shared by the operations of a batch. */
  readonly listItems: ListItemBudget;
  /** Who would hold the operation's subscription, for the per-client bound. */
  readonly subscriber: Subscriber;
  /** What a subscription reads (absent where subscriptions are not served). */
  readonly source?: SubscriptionSource | undefined;
  /**
   * The cursor of the event a subscription is delivering (src/live/event-cursors.ts puts it in
   * the result's `extensions.cursor`); undefined for a result that is no event.
   */
  eventCursor?: string | undefined;
  /**
   * A subscription's next event starts its reads afresh (new loaders, a new list-item budget), so
   * an event never sees what an earlier one read. Called by the event stream before it delivers.
   */
  nextEvent(): void;
}
