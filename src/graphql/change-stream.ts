import type { Change } from '../domain/changes.js';
import { DomainError } from '../domain/errors.js';
import { inLinkedSpan } from '../tracing/hooks.js';
import type { GraphQLContext } from './context.js';
import { PendingEvents } from './pending-events.js';
import { SUBSCRIPTION_QUEUE_SIZE } from './subscriptions.js';

/** What a subscription field makes of the change feed. */
export interface ChangeSelection<Event, Value> {
  /** The event a change means for this subscriber, or undefined when its arguments filter it out. */
  select(change: Change): Event | undefined;
  /** Events with the same key coalesce while they wait. */
  keyOf(event: Event): string;
  /**
   * Reads what the event delivers, with the event's fresh loaders; undefined skips it (the thing is
   * gone by the time its event is delivered).
   */
  deliver(event: Event): Value | undefined | Promise<Value | undefined>;
}

const slowConsumer = (size: number) =>
  new DomainError(
    'RATE_LIMITED',
    `More than ${size} events waited for this subscription because the client did not read them; it has been ended: subscribe again and re-read what you show`,
  );

/**
 * A subscription's source stream: the changes of the app's change feed that `selection` picks,
 * each delivered with fresh reads (new loaders for every event, with the subscriber's viewer), in
 * a bounded queue (`PendingEvents`). It counts against the subscriber's bound from the moment it
 * is created, so a refusal is the subscription's error rather than its first event. When the
 * client falls too far behind, the last value is an error (the field's resolver throws it) and
 * the stream ends.
 */
export function changeStream<Event, Value>(
  ctx: GraphQLContext,
  selection: ChangeSelection<Event, Value>,
  queueSize = SUBSCRIPTION_QUEUE_SIZE,
): AsyncIterableIterator<Value | Error> {
  // Each event with the trace context of the write that caused it.
  const pending = new PendingEvents<{ event: Event; cause: string | undefined }>(queueSize);
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    pending.clear();
    unsubscribe();
    release();
    pending.notify();
  };
  const release = ctx.subscriber.subscriptions.open(ctx.subscriber.client, finish);
  const unsubscribe = ctx.domain.changes.subscribe((changes, _origin, cause) => {
    for (const change of changes) {
      const event = selection.select(change);
      if (event !== undefined && !pending.add(selection.keyOf(event), { event, cause })) break;
    }
    if (pending.overflowed) unsubscribe();
    pending.notify();
  });

  /** The next event's value, read afresh; undefined when the stream has ended. */
  const next = async (): Promise<Value | Error | undefined> => {
    while (!done) {
      const waiting = pending.take();
      if (waiting === undefined) {
        if (pending.overflowed) {
          finish();
          return slowConsumer(queueSize);
        }
        await pending.wait();
        continue;
      }
      // Each event reads anew: nothing an earlier event loaded is reused.
      ctx.nextEvent();
      try {
        const { event, cause } = waiting;
        const value = await inLinkedSpan(
          'subscription event',
          cause,
          { 'graphql.subscription.event': selection.keyOf(event) },
          async () => selection.deliver(event),
        );
        if (value !== undefined && !done) return value;
      } catch (error) {
        // The field's resolver throws it: an error on this event (masked, e.g. UNAVAILABLE),
        // and the stream goes on.
        return error instanceof Error ? error : new Error(String(error));
      }
    }
    return undefined;
  };

  const ended = { done: true, value: undefined } as const;
  const iterator: AsyncIterableIterator<Value | Error> = {
    async next() {
      const value = await next();
      return value === undefined ? ended : { done: false, value };
    },
    async return() {
      finish();
      return ended;
    },
    async throw(error) {
      finish();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** The subscription field's resolver: an event's value, or the error that ended the stream. */
export function delivered<Value>(value: Value | Error): Value {
  if (value instanceof Error) throw value;
  return value;
}
