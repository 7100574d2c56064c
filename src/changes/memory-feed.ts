import type { Change, ChangeFeed, ChangeListener, ChangeOrigin } from '../domain/changes.js';
import { currentTraceparent } from '../tracing/hooks.js';

/** A change feed in this process, which can also deliver what other replicas made (`deliver`). */
export interface MemoryChangeFeed extends ChangeFeed {
  /** Tells every listener about changes and waits for them; a failing listener fails nothing. */
  deliver(changes: readonly Change[], origin: ChangeOrigin, cause?: string): Promise<void>;
}

export function createMemoryChangeFeed(): MemoryChangeFeed {
  const listeners = new Set<ChangeListener>();
  const deliver = async (changes: readonly Change[], origin: ChangeOrigin, cause?: string) => {
    // A listener that fails must not fail a write that is already committed.
    await Promise.allSettled(
      [...listeners].map(async (listener) => listener(changes, origin, cause)),
    );
  };
  return {
    deliver,
    // The write publishes in its own trace context: the span in progress is its cause.
    publish: (changes) => deliver(changes, 'local', currentTraceparent()),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
