import type { Writer } from '../db/change-events.js';
import type { RunStatement } from '../db/raw-sql.js';

export type ChangeKind = 'created' | 'updated' | 'deleted';

/** A committed write, as readers of the data care about it: what changed, and its ids. */
export type Change =
  | { entity: 'pet'; kind: ChangeKind; id: bigint }
  | { entity: 'category'; kind: ChangeKind; id: bigint }
  | { entity: 'order'; kind: ChangeKind; id: bigint; petId: bigint }
  | { entity: 'inventory'; kind: ChangeKind; petId: bigint };

/** Where a change was made: by this process, or by another replica (heard through the feed). */
export type ChangeOrigin = 'local' | 'remote';

/**
 * `cause` is the write's trace context (a W3C `traceparent`) when tracing is on: the events the
 * changes become link to the write's trace, on this replica or another.
 */
export type ChangeListener = (
  changes: readonly Change[],
  origin: ChangeOrigin,
  cause?: string,
) => void | Promise<void>;

/**
 * Where the domain reports its writes, whichever edge made them (src/changes/). A write records
 * its changes in its own transaction (the outbox), so that they commit with it or not at all,
 * never for a write that was rolled back; once committed it publishes them. Listeners (the
 * response cache) hear this process's changes when they are published, and must have evicted
 * before the write answers (so `publish` waits for them); they hear the changes of other
 * processes (replicas) as the outbox's delivery reads them. Subscriptions read the outbox itself.
 */
export interface ChangeFeed {
  /**
   * Writes the changes' events in the write's transaction (`query` runs a statement in it), with
   * the write's trace context (`cause`, a W3C traceparent) when it is traced.
   */
  record(query: RunStatement, changes: readonly Change[], cause?: string): Promise<void>;
  /**
   * For a write whose own statement appends its events (`appendingEvents` in
   * src/db/change-events.ts): who writes them, now, with the write's trace context.
   */
  writer(cause?: string): Writer;
  /** Such a write's changes, appended by `writer` up to the event `last`, before `publish`. */
  appended(changes: readonly Change[], writer: Writer, last: bigint): void;
  /** After the commit: tells this process's listeners, and wakes the delivery. */
  publish(changes: readonly Change[]): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(listener: ChangeListener): () => void;
}

/** For contexts that only read (coalesced public reads, the cost limit's counts). */
export const readOnly: ChangeFeed = {
  record: async () => {
    throw new Error('a read-only domain context cannot record changes');
  },
  writer: () => {
    throw new Error('a read-only domain context cannot record changes');
  },
  appended: () => {
    throw new Error('a read-only domain context cannot record changes');
  },
  publish: async () => {
    throw new Error('a read-only domain context cannot publish changes');
  },
  subscribe: () => () => {},
};
