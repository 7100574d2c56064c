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
 * Where the domain reports its writes once they are committed, whichever edge made them (never a
 * write that was rolled back). Listeners are the response cache, which must have evicted before
 * the write answers (so `publish` waits for them), and the subscriptions. In memory by default
 * (src/changes/); through Redis, replicas hear each other's writes.
 */
export interface ChangeFeed {
  publish(changes: readonly Change[]): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(listener: ChangeListener): () => void;
}

/** For contexts that only read (coalesced public reads, the cost limit's counts). */
export const readOnly: ChangeFeed = {
  publish: async () => {
    throw new Error('a read-only domain context cannot publish changes');
  },
  subscribe: () => () => {},
};
