import { randomInt } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import { changeTags } from '../cache/tags.js';
import type { ChangeEvent } from '../changes/event.js';
import type { EdgeSettings } from '../config.js';
import type { EdgePurgeRow } from '../db/edge-purge.js';
import type { Logger } from '../logger.js';
import { purgeBatches, sendPurge } from './purge-request.js';

/** How long a purger's lease lasts without renewal: after a crash, another takes over by then. */
export const LEASE_MS = 5000;
/** How often the purger looks at the outbox and its lease, whatever woke it (or did not). */
const TICK_MS = 1000;
/** The first wait after a failed purge, doubled each time up to `MAX_BACKOFF_MS`. */
const FIRST_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 30_000;

/** What the purger reads of the outbox: the change feed's delivery (src/changes/delivery.ts). */
export interface PurgeSource {
  /** The last event this process has read. */
  readonly head: bigint;
  /** The events after `cursor`, oldest first, at most `limit`; EVENT_CURSOR_EXPIRED when gone. */
  after(cursor: bigint, limit: number): Promise<readonly ChangeEvent[]>;
  /** Calls `watcher` whenever new events have been read. */
  watch(watcher: () => void): () => void;
}

export interface EdgePurgerOptions {
  settings: EdgeSettings & { purgeUrl: string };
  source: PurgeSource;
  row: EdgePurgeRow;
  logger: Logger;
  registry: Registry;
}

/**
 * Purges the CDN of the tags every committed change evicts from the response cache (`changeTags`,
 * the one place that says so), in the outbox's order: woken as this process reads new events, and
 * every second. One process purges at a time, the one holding the lease of the `EdgePurge` row,
 * which also keeps the last event purged: it moves only once the CDN has answered 2xx to every
 * request of a round, so a failure, a restart or a `kill -9` purges the same events again (a purge
 * is idempotent), never fewer. A failing CDN is retried with a growing wait; requests never wait
 * for it.
 */
export class EdgePurger {
  readonly #options: EdgePurgerOptions;
  readonly #owner = randomInt(1, 2 ** 31 - 1);
  #running = false;
  #again = false;
  #closed = false;
  #failures = 0;
  #retryAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopWatching: (() => void) | undefined;
  /** The last event purged, as this process last saw it. */
  #last: bigint | undefined;
  /** When this process first saw events it has not purged yet (for the lag). */
  #behindSince: number | undefined;
  readonly #failed: Counter;
  readonly #purged: Counter;

  constructor(options: EdgePurgerOptions) {
    this.#options = options;
    const registers = [options.registry];
    this.#failed = new Counter({
      name: 'petstore_edge_purge_failures_total',
      help: 'Purge requests the CDN failed or did not answer (each is retried)',
      registers,
    });
    this.#purged = new Counter({
      name: 'petstore_edge_purge_requests_total',
      help: 'Purge requests the CDN answered with 2xx',
      registers,
    });
    const purger = this;
    new Gauge({
      name: 'petstore_edge_purge_last_event',
      help: 'The last outbox event whose tags the CDN purged (as this process last saw it)',
      registers,
      collect() {
        this.set(Number(purger.#last ?? 0n));
      },
    });
    new Gauge({
      name: 'petstore_edge_purge_lag_seconds',
      help: 'How long the oldest committed change this process has read waits for its purge (0: none)',
      registers,
      collect() {
        this.set(purger.lagMs() / 1000);
      },
    });
  }

  /** How long purges have been behind the events this process read, in ms (0 when caught up). */
  lagMs(): number {
    return this.#behindSince === undefined ? 0 : Date.now() - this.#behindSince;
  }

  /** Whether purges are more than a second behind the committed changes (`/health/ready`). */
  behind(): boolean {
    return this.lagMs() > 1000;
  }

  start(): void {
    this.#stopWatching = this.#options.source.watch(() => this.wake());
    this.#timer = setInterval(() => this.wake(), TICK_MS);
    this.#timer.unref();
    this.wake();
  }

  /** Runs a round now, or after the one under way. */
  wake(): void {
    if (this.#closed) return;
    if (this.#behindSince === undefined && this.#last !== undefined) {
      if (this.#options.source.head > this.#last) this.#behindSince = Date.now();
    }
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (Date.now() < this.#retryAt) return;
    this.#running = true;
    void this.#rounds().finally(() => {
      this.#running = false;
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#stopWatching?.();
    await this.#options.row.release(this.#owner).catch(() => {});
  }

  async #rounds(): Promise<void> {
    do {
      this.#again = false;
      try {
        const more = await this.#round();
        if (this.#failures > 0) this.#options.logger.info('the CDN takes purges again');
        this.#failures = 0;
        this.#retryAt = 0;
        if (more) this.#again = true;
      } catch (error) {
        this.#failures++;
        const wait = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (this.#failures - 1));
        this.#retryAt = Date.now() + wait;
        if (this.#failures === 1)
          this.#options.logger.warn({ err: error }, 'cannot purge the CDN: retrying with backoff');
        setTimeout(() => this.wake(), wait).unref();
        return;
      }
    } while (this.#again && !this.#closed);
  }

  /** One round: the lease, then the events after the cursor purged. Answers whether more wait. */
  async #round(): Promise<boolean> {
    const { source, row, settings } = this.#options;
    const now = Date.now();
    const head = source.head;
    const last = await row.claim(this.#owner, now, now + LEASE_MS, head);
    this.#last = last;
    // Another process holds the lease: it purges.
    if (last === undefined) {
      this.#behindSince = undefined;
      return false;
    }
    if (last >= head) {
      this.#behindSince = undefined;
      return false;
    }
    this.#behindSince ??= now;
    const events = await this.#eventsAfter(last);
    const newest = events.at(-1);
    if (!newest) return false;
    const tags = new Set<string>();
    for (const { change } of events)
      if (change) for (const tag of changeTags(change)) tags.add(tag);
    const target = { url: settings.purgeUrl, kind: settings.purgeKind, token: settings.purgeToken };
    for (const batch of purgeBatches(tags, settings.purgeMaxTags, settings.purgeMaxBytes)) {
      try {
        await sendPurge(target, batch);
      } catch (error) {
        this.#failed.inc();
        throw error;
      }
      this.#purged.inc();
    }
    if (!(await row.advance(this.#owner, newest.id, Date.now() + LEASE_MS))) return false;
    this.#last = newest.id;
    const caughtUp = newest.id >= source.head;
    this.#behindSince = caughtUp ? undefined : Date.now();
    return !caughtUp;
  }

  /**
   * The events after `cursor`, at most a batch. Events older than the outbox keeps
   * (EVENT_RETENTION_HOURS) cannot be purged by their tags: the purger says so and goes on from the
   * oldest kept, since the CDN's own lifetime (EDGE_CACHE_MAX_AGE_S) bounds what it may still hold.
   */
  async #eventsAfter(cursor: bigint): Promise<readonly ChangeEvent[]> {
    const { source, settings, logger } = this.#options;
    try {
      return await source.after(cursor, settings.purgeBatchEvents);
    } catch (error) {
      if ((error as { code?: string }).code !== 'EVENT_CURSOR_EXPIRED') throw error;
      logger.error(
        { after: String(cursor) },
        'events older than the outbox keeps were never purged: the CDN may hold them until their max-age',
      );
      const start = source.head;
      await this.#options.row.advance(this.#owner, start, Date.now() + LEASE_MS);
      this.#last = start;
      return [];
    }
  }
}
