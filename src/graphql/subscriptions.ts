import type { Change } from '../domain/changes.js';
import { DomainError } from '../domain/errors.js';
import type { GraphQLContext } from './context.js';

/**
 * Events one subscription may have waiting for its client. Events for the same thing coalesce (the
 * data is read when an event is delivered, so one pending `updated` of pet 7 stands for any number
 * of them); past this many distinct pending events the client is too slow and the subscription
 * ends with an error, so a stalled reader costs the server a bounded amount of memory.
 */
export const SUBSCRIPTION_QUEUE_SIZE = 100;

/** Who holds a subscription: the token subject, else the peer address (as the rate limit). */
export interface Subscriber {
  readonly client: string;
  readonly subscriptions: Subscriptions;
}

/** The open subscriptions of one app, over both transports: the per-client bound, and shutdown. */
export class Subscriptions {
  readonly #openByClient = new Map<string, number>();
  readonly #ends = new Set<() => void>();
  #closed = false;

  constructor(readonly perClient: number) {}

  get size(): number {
    return this.#ends.size;
  }

  /**
   * Counts a new subscription of `client`, or refuses it (RATE_LIMITED) past the bound; `end` is
   * called to finish it at shutdown. Returns the function that uncounts it.
   */
  open(client: string, end: () => void): () => void {
    if (this.#closed) {
      throw new DomainError('UNAVAILABLE', 'The server is shutting down; subscribe again shortly');
    }
    const open = this.#openByClient.get(client) ?? 0;
    if (open >= this.perClient) {
      throw new DomainError(
        'RATE_LIMITED',
        `A client may hold at most ${this.perClient} subscriptions open at once; complete one before starting another`,
      );
    }
    this.#openByClient.set(client, open + 1);
    this.#ends.add(end);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#ends.delete(end);
      const left = (this.#openByClient.get(client) ?? 1) - 1;
      if (left > 0) this.#openByClient.set(client, left);
      else this.#openByClient.delete(client);
    };
  }

  /** Refuses new subscriptions and completes every open one (their streams end cleanly). */
  close(): void {
    this.#closed = true;
    for (const end of [...this.#ends]) end();
  }
}

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
 * a bounded queue. It counts against the subscriber's bound from the moment it is created, so a
 * refusal is the subscription's error rather than its first event. When the client falls too far
 * behind, the last value is an error (the field's resolver throws it) and the stream ends.
 */
export function changeStream<Event, Value>(
  ctx: GraphQLContext,
  selection: ChangeSelection<Event, Value>,
  queueSize = SUBSCRIPTION_QUEUE_SIZE,
): AsyncIterableIterator<Value | Error> {
  const pending = new Map<string, Event>();
  let overflowed = false;
  let done = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };

  const finish = () => {
    if (done) return;
    done = true;
    pending.clear();
    unsubscribe();
    release();
    notify();
  };
  const release = ctx.subscriber.subscriptions.open(ctx.subscriber.client, finish);
  const unsubscribe = ctx.domain.changes.subscribe((changes) => {
    if (done || overflowed) return;
    for (const change of changes) {
      const event = selection.select(change);
      if (event === undefined) continue;
      const key = selection.keyOf(event);
      if (pending.has(key)) continue;
      if (pending.size >= queueSize) {
        overflowed = true;
        pending.clear();
        unsubscribe();
        break;
      }
      pending.set(key, event);
    }
    notify();
  });

  const ended = { done: true, value: undefined } as const;
  const iterator: AsyncIterableIterator<Value | Error> = {
    async next() {
      while (!done) {
        const first = pending.entries().next();
        if (!first.done) {
          const [key, event] = first.value;
          pending.delete(key);
          // Each event reads anew: nothing an earlier event loaded is reused.
          ctx.nextEvent();
          let value: Value | undefined;
          try {
            value = await selection.deliver(event);
          } catch (error) {
            // The field's resolver throws it: an error on this event (masked, e.g. UNAVAILABLE),
            // and the stream goes on.
            return {
              done: false,
              value: error instanceof Error ? error : new Error(String(error)),
            };
          }
          if (value !== undefined && !done) return { done: false, value };
          continue;
        }
        if (overflowed) {
          finish();
          return { done: false, value: slowConsumer(queueSize) };
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      return ended;
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
