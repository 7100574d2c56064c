import { appendEvents, eventChannel, type StoredEvent, storedEvents } from '../db/change-events.js';
import type { Database } from '../db/client.js';
import type { Change, ChangeFeed, ChangeListener, ChangeOrigin } from '../domain/changes.js';
import { currentTraceparent } from '../tracing/hooks.js';
import type { EventDelivery } from './delivery.js';
import { type ChangeEvent, fromRow, toRow } from './event.js';

/**
 * The change feed over the outbox. A write records its events in its transaction and, once
 * committed, publishes them: this process's listeners (the response cache) hear them at once, and
 * the delivery gets them as they were stored. The listeners hear the other processes' writes
 * (replicas, or a process that died before it could publish) as the delivery reads them, as
 * `remote` changes.
 */
export function createChangeFeed(
  database: Database,
  delivery: EventDelivery,
  /** This process's mark on its events (a random number per start). */
  origin: number,
): ChangeFeed {
  const channel = eventChannel(database.config);
  const listeners = new Set<ChangeListener>();
  const tell = async (changes: readonly Change[], from: ChangeOrigin, cause?: string) => {
    // A listener that fails must not fail a write that is already committed.
    await Promise.allSettled(
      [...listeners].map(async (listener) => listener(changes, from, cause)),
    );
  };
  delivery.onEvents((events) => {
    for (const [changes, cause] of remoteWrites(events, origin))
      void tell(changes, 'remote', cause);
  });
  // The events of the writes in flight, by the changes each publishes once committed: taken out
  // then (a write rolled back never publishes; its entry goes with its changes).
  const recorded = new WeakMap<readonly Change[], ChangeEvent[]>();
  const remember = (changes: readonly Change[], events: readonly StoredEvent[]) =>
    recorded.set(changes, events.map(fromRow));
  const feed: ChangeFeed = {
    writer: (cause) => ({ origin, cause, at: Date.now(), channel }),
    async record(query, changes, cause) {
      const rows = changes.map(toRow);
      remember(changes, await appendEvents(query, database.dialect, rows, feed.writer(cause)));
    },
    appended(changes, writer, last) {
      remember(changes, storedEvents(changes.map(toRow), writer, last));
    },
    async publish(changes) {
      // The write publishes in its own trace context: the span in progress is its cause.
      await tell(changes, 'local', currentTraceparent());
      // Handed to the delivery rather than read back.
      const events = recorded.get(changes);
      recorded.delete(changes);
      if (events) delivery.offer(events);
      else delivery.refresh().catch(() => {});
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return feed;
}

/** Other processes' events, the consecutive ones of one write (one trace context) together. */
function remoteWrites(events: readonly ChangeEvent[], origin: number) {
  const writes: [Change[], string | undefined][] = [];
  let previous: ChangeEvent | undefined;
  for (const event of events) {
    if (event.origin === origin || !event.change) continue;
    const last = writes.at(-1);
    if (last && previous?.origin === event.origin && previous.cause === event.cause)
      last[0].push(event.change);
    else writes.push([[event.change], event.cause]);
    previous = event;
  }
  return writes;
}
