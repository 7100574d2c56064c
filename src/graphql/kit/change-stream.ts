import { type ChangeEvent, cursorOf, parseCursor } from '../../changes/event.js';
import type { Change } from '../../domain/changes.js';
import { DomainError } from '../../errors/catalogue.js';
import { inLinkedSpan } from '../../tracing/hooks.js';
import type { GraphQLContext } from './context.js';

/** What a subscription field makes of the committed changes. */
export interface ChangeSelection<Event, Value> {
  /** The event a change means for this subscriber, or undefined when its arguments filter it out. */
  select(change: Change): Event | undefined;
  /**
   * Reads what the event delivers, with the event's fresh loaders; undefined skips it (the thing is
   * gone by the time its event is delivered). `cursor` is the event's.
   */
  deliver(event: Event, cursor: string): Value | undefined | Promise<Value | undefined>;
}

/**
 * What a subscription's stream lets a fan-out (src/live/fan-out.ts) know of it, so that
 * subscriptions watching the same thing share one reader and one execution per event: what it
 * selects, where it stands, and what keeps it open (`life`).
 */
export interface LiveStream {
  readonly selection: ChangeSelection<unknown, unknown>;
  /** The last event this stream has consumed (delivered or filtered out). */
  cursor(): bigint;
  readonly life: SubscriptionLife;
}

/**
 * What keeps a subscription open apart from its reads: its place under the per-client bound, its
 * token's expiry and its connection's end. Apart from the stream (and the request's context that
 * the stream reads with), so that a fan-out member that lets go of the stream keeps only this.
 */
export class SubscriptionLife {
  #done = false;
  #expired = false;
  #expiry: NodeJS.Timeout | undefined;
  #release = () => {};
  #interrupted: (() => void) | undefined;
  /** The stream's own reaction to an end or an expiry, while it reads (`detach` drops it). */
  #stream: (() => void) | undefined;
  /** Ends the subscription: its place under the per-client bound is free again. */
  readonly end = () => {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#expiry);
    this.#release();
    this.closed?.removeEventListener('abort', this.end);
    this.#changed();
  };

  constructor(
    private readonly closed: AbortSignal | undefined,
    /** When the subscriber's token expires (epoch ms), if it does. */
    private readonly expiresAt: number | undefined,
    /** The transport closes the connection at the expiry itself (WebSocket, 4403). */
    private readonly transportEndsAtExpiry: boolean,
    stream: () => void,
  ) {
    this.#stream = stream;
    closed?.addEventListener('abort', this.end);
  }

  get done(): boolean {
    return this.#done;
  }

  /** Counted under the per-client bound from now on, until the end (`release` frees the place). */
  hold(release: () => void): void {
    this.#release = release;
  }

  /** The token's expiry ends the stream then, not at the next event: the client learns of it. */
  armExpiry = (): void => {
    const { expiresAt } = this;
    if (expiresAt === undefined || this.#done || this.transportEndsAtExpiry) return;
    const left = expiresAt - Date.now();
    if (left <= 0) {
      this.#expired = true;
      this.#changed();
      return;
    }
    this.#expiry = setTimeout(this.armExpiry, Math.min(left, MAX_TIMER_MS));
    this.#expiry.unref();
  };

  /** True once the subscriber's token has expired. */
  expired(): boolean {
    return this.#expired || (this.expiresAt !== undefined && Date.now() >= this.expiresAt);
  }

  /** Calls `interrupted` once the subscription ends or its token expires. */
  onInterrupt(interrupted: () => void): void {
    if (this.#done || this.expired()) interrupted();
    else this.#interrupted = interrupted;
  }

  /**
   * From now on the stream's end (its iterator's `return()`) only stops its reads: the end, the
   * expiry and the per-client place stay here, for whoever called this (a fan-out member that no
   * longer keeps the stream), until `end()`.
   */
  detach(): void {
    this.#stream = undefined;
  }

  get detached(): boolean {
    return this.#stream === undefined;
  }

  #changed(): void {
    this.#stream?.();
    const interrupted = this.#interrupted;
    this.#interrupted = undefined;
    interrupted?.();
  }
}

const liveStreams = new WeakMap<object, LiveStream>();

/** The `LiveStream` of a subscription's source stream made by `changeStream`, if it is one. */
export function liveStreamOf(stream: unknown): LiveStream | undefined {
  return typeof stream === 'object' && stream !== null ? liveStreams.get(stream) : undefined;
}

/**
 * An event's value for a subscriber with context `ctx`, read afresh (new loaders): what a
 * stream's `next()` delivers, and what a fan-out's group delivers for all its members.
 */
export async function deliverEvent<Event, Value>(
  ctx: GraphQLContext,
  selection: ChangeSelection<Event, Value>,
  selected: Event,
  event: ChangeEvent,
): Promise<Value | undefined> {
  // Each event reads anew: nothing an earlier event loaded is reused.
  ctx.nextEvent();
  const eventCursor = cursorOf(event.id);
  return inLinkedSpan(
    'subscription event',
    event.cause,
    { 'graphql.subscription.event': eventCursor },
    async () => selection.deliver(selected, eventCursor),
  );
}

/** Events taken from the delivery at a time. */
const BATCH = 100;
/** How long a stream waits before reading again after the outbox could not be read. */
const RETRY_MS = 1000;
/** The longest a timer may wait (setTimeout's limit); a later expiry is checked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The error that ends a subscription when its token expires (its last event). */
export const tokenExpired = () =>
  new DomainError(
    'UNAUTHENTICATED',
    'The bearer token of this subscription has expired: subscribe again with a new token',
  );

/**
 * A subscription's source stream: the committed changes that `selection` picks, in commit order,
 * each exactly once, each delivered with fresh reads (new loaders for every event, with the
 * subscriber's viewer). It starts after the cursor the client resumes from (SSE `Last-Event-ID`,
 * else the field's `after`), or after the newest event for a new subscription; it holds only its
 * cursor, reading the events from the process's delivery as the client asks for them, so a client
 * that does not read costs nothing but the cursor. It counts against the subscriber's bound from
 * the moment it is created (a refusal is the subscription's error rather than its first event),
 * and it ends with an error event when the token expires, and at once when the client's
 * connection closes.
 */
export async function changeStream<Event, Value>(
  ctx: GraphQLContext,
  selection: ChangeSelection<Event, Value>,
  after: string | null | undefined,
): Promise<AsyncIterableIterator<Value | Error>> {
  const source = ctx.source;
  if (!source) throw new Error('subscriptions are not served here');
  const { events } = source;

  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  let stopWatching = () => {};
  const life = new SubscriptionLife(
    source.request?.signal,
    ctx.domain.viewer.expiresAt,
    source.transportEndsAtExpiry === true,
    () => {
      if (life.done) stopWatching();
      notify();
    },
  );
  const finish = life.end;
  /** The iterator's end: the subscription's, unless a fan-out member keeps it (`detach`). */
  const stopReading = () => {
    if (!life.detached) return finish();
    stopWatching();
    notify();
  };

  let cursor: bigint;
  try {
    cursor = await startingCursor(source, after);
    // Open (counted, and within its client's cap) once it has its cursor: every event committed
    // from then on reaches it. Counted earlier, a write made once the count said so could commit
    // before the cursor was read, and the cursor would start after its event.
    if (!life.done) life.hold(ctx.subscriber.subscriptions.open(ctx.subscriber.client, finish));
  } catch (error) {
    finish();
    throw error;
  }
  if (source.request?.signal.aborted) finish();
  if (!life.done) stopWatching = events.watch(notify);
  // Over WebSocket the transport closes the connection at the expiry instead.
  life.armExpiry();

  let batch: readonly ChangeEvent[] = [];
  let index = 0;
  const pause = (ms?: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      if (ms !== undefined) setTimeout(notify, ms).unref();
    });

  /** The next event's value, read afresh; undefined once the stream has ended. */
  const next = async (): Promise<Value | Error | undefined> => {
    while (!life.done) {
      // Never an event after the token's expiry.
      if (life.expired()) {
        finish();
        ctx.eventCursor = undefined;
        return source.transportEndsAtExpiry ? undefined : tokenExpired();
      }
      const event = batch[index];
      if (event === undefined) {
        if (cursor >= events.head) {
          await pause();
          continue;
        }
        try {
          batch = await events.after(cursor, BATCH);
          index = 0;
        } catch (error) {
          if (error instanceof DomainError) {
            // The client fell behind what the outbox keeps.
            finish();
            ctx.eventCursor = undefined;
            return error;
          }
          // The outbox cannot be read (the database is away): try again shortly.
          await pause(RETRY_MS);
        }
        continue;
      }
      index++;
      cursor = event.id;
      const selected = event.change && selection.select(event.change);
      if (selected === undefined) continue;
      const eventCursor = cursorOf(event.id);
      try {
        const value = await deliverEvent(ctx, selection, selected, event);
        if (value === undefined || life.done) continue;
        if (life.expired()) continue;
        ctx.eventCursor = eventCursor;
        return value;
      } catch (error) {
        // The field's resolver throws it: an error on this event (masked, e.g. UNAVAILABLE),
        // and the stream goes on.
        ctx.eventCursor = eventCursor;
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
      stopReading();
      return ended;
    },
    async throw(error) {
      stopReading();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  liveStreams.set(iterator, {
    selection: selection as ChangeSelection<unknown, unknown>,
    cursor: () => cursor,
    life,
  });
  return iterator;
}

/**
 * Where a subscription starts: after the cursor its client resumes from (SSE `Last-Event-ID`, which
 * the browser resends by itself, wins over the field's `after`), once the outbox is known to keep
 * every event after it; else after the newest event committed so far.
 */
async function startingCursor(
  source: NonNullable<GraphQLContext['source']>,
  after: string | null | undefined,
): Promise<bigint> {
  const lastEventId = source.request?.headers.get('last-event-id') ?? undefined;
  const resumeFrom = lastEventId ?? after ?? undefined;
  if (resumeFrom === undefined) return source.events.position();
  const cursor = parseCursor(resumeFrom, lastEventId === undefined ? 'after' : 'Last-Event-ID');
  await source.events.checkResumable(cursor);
  return cursor;
}

/** The subscription field's resolver: an event's value, or the error that ended the stream. */
export function delivered<Value>(value: Value | Error): Value {
  if (value instanceof Error) throw value;
  return value;
}
