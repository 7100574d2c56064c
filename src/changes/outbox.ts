import { randomInt } from 'node:crypto';
import { openEventReader } from '../db/change-events.js';
import type { Database } from '../db/client.js';
import type { ChangeFeed } from '../domain/changes.js';
import type { Logger } from '../logger.js';
import { EventDelivery } from './delivery.js';
import { createChangeFeed } from './feed.js';
import { keepEvents, type Retention } from './retention.js';

/** The outbox is read at least this often, whatever woke it (or did not). */
export const POLL_MS = 1000;

export interface OutboxOptions {
  /** EVENT_RETENTION_HOURS */
  retentionHours: number;
  /** EVENT_BUFFER_SIZE */
  bufferSize: number;
  logger: Logger;
}

/** The app's events: the feed writes report to, the delivery subscriptions read, the retention. */
export interface Outbox {
  readonly feed: ChangeFeed;
  readonly delivery: EventDelivery;
  readonly retention: Retention;
  close(): Promise<void>;
}

export async function openOutbox(database: Database, options: OutboxOptions): Promise<Outbox> {
  const { logger } = options;
  let delivery: EventDelivery | undefined;
  const wake = () => delivery?.refresh().catch(() => {});
  // Tells this process's events apart from the others' in the outbox.
  const origin = randomInt(1, 2 ** 31 - 1);
  const reader = openEventReader(database.config, {
    // This process's own writes notify it too: it has their events already (the feed hands them
    // to the delivery as they commit), and reading them back would cost every write a read.
    onNotify: (writer) => {
      if (writer !== origin) wake();
    },
    // Notifications sent while the connection was down are lost: read what was committed.
    onConnect: wake,
    onError: (error) => logger.debug({ err: error }, 'the outbox reader lost its connection'),
  });
  delivery = new EventDelivery({
    reader,
    bufferSize: options.bufferSize,
    pollMs: POLL_MS,
    logger,
  });
  await delivery.start();
  const retention = keepEvents(database, options.retentionHours, logger);
  return {
    feed: createChangeFeed(database, delivery, origin),
    delivery,
    retention,
    async close() {
      retention.stop();
      await delivery.close();
    },
  };
}
