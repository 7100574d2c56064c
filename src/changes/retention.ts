import { removeEventsBefore } from '../db/change-events.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';

/** Events removed in one statement: a short one, so that writes never wait long behind it. */
const SWEEP_BATCH = 1000;
const SWEEP_EVERY_MS = 10 * 60_000;

export interface Retention {
  /** Removes the events older than the retention now (also done every 10 minutes). */
  sweep(): Promise<number>;
  stop(): void;
}

/**
 * Keeps the outbox to `hours` of events (EVENT_RETENTION_HOURS): a sweep in the background every
 * few minutes removes the oldest in small batches, yielding between them.
 */
export function keepEvents(database: Database, hours: number, logger: Logger): Retention {
  let stopped = false;
  const sweep = async () => {
    const before = Date.now() - hours * 3_600_000;
    let removed = 0;
    for (;;) {
      const count = await removeEventsBefore(database.prisma, before, SWEEP_BATCH);
      removed += count;
      if (count < SWEEP_BATCH || stopped) return removed;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const timer = setInterval(() => {
    sweep().catch((error) => logger.debug({ err: error }, 'old events not removed'));
  }, SWEEP_EVERY_MS);
  timer.unref();
  return {
    sweep,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
