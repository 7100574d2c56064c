import type { EventReader } from '../db/change-events.js';
import type { Logger } from '../logger.js';
import { type ChangeEvent, cursorExpired, fromRow } from './event.js';

/** Events read from the outbox in one statement. */
const READ_BATCH = 500;

export interface DeliveryOptions {
  reader: EventReader;
  /** The newest events kept in memory for this process's subscribers (EVENT_BUFFER_SIZE). */
  bufferSize: number;
  /**
   * How often the outbox is read even when nothing woke the delivery: the safety net behind the
   * wake-ups (and how other processes on one SQLite file are heard).
   */
  pollMs: number;
  logger: Logger;
}

/**
 * This process's reader of the outbox: it reads the committed events in their order (woken by this
 * process's writes, by PostgreSQL's notifications of the other replicas' writes, and every
 * `pollMs`), keeps the newest in a bounded buffer, and lets each subscription walk them with a
 * cursor of its own. A subscription holds no queue: one that falls behind the buffer reads from
 * the outbox itself, and one that falls behind what the outbox keeps is told EVENT_CURSOR_EXPIRED.
 */
export class EventDelivery {
  readonly #reader: EventReader;
  readonly #bufferSize: number;
  readonly #logger: Logger;
  /** The newest events read, oldest first, at most `bufferSize` (plus as many before trimming). */
  #buffer: ChangeEvent[] = [];
  /** The last event id read from the outbox; undefined before `start`. */
  #head: bigint | undefined;
  readonly #watchers = new Set<() => void>();
  readonly #eventListeners = new Set<(events: readonly ChangeEvent[]) => void>();
  /** Reads asked for and reads done: a read asked for after a commit finds its events. */
  #asked = 0;
  #done = 0;
  #reading = false;
  readonly #waiting: { asked: number; resolve(): void; reject(error: unknown): void }[] = [];
  #timer: NodeJS.Timeout | undefined;
  #failing = false;

  constructor(private readonly options: DeliveryOptions) {
    this.#reader = options.reader;
    this.#bufferSize = options.bufferSize;
    this.#logger = options.logger;
  }

  /** Starts after the newest event committed so far, and reads every `pollMs` from then on. */
  async start(): Promise<void> {
    this.#head = (await this.#reader.bounds())?.last ?? 0n;
    this.#timer = setInterval(() => void this.refresh().catch(() => {}), this.options.pollMs);
    this.#timer.unref();
  }

  /** The last event id read (0 before any event was ever written). */
  get head(): bigint {
    if (this.#head === undefined) throw new Error('the event delivery has not started');
    return this.#head;
  }

  /** Reads the outbox now: resolves once every event committed before the call has been read. */
  refresh(): Promise<void> {
    const asked = ++this.#asked;
    const read = new Promise<void>((resolve, reject) => {
      this.#waiting.push({ asked, resolve, reject });
    });
    void this.#pump();
    return read;
  }

  /**
   * The cursor a new live subscription starts from: the newest event committed so far, or, while
   * the outbox cannot be read, the newest read (the events between come first, once it can).
   */
  async position(): Promise<bigint> {
    await this.refresh().catch(() => {});
    return this.head;
  }

  /**
   * Whether a subscription may resume after `cursor`: only while every event after it is kept.
   * A cursor beyond the newest event names none of this store's (a database started anew): the
   * same answer, since the client must read again either way.
   */
  async checkResumable(cursor: bigint): Promise<void> {
    const bounds = await this.#reader.bounds();
    const kept = bounds ? cursor >= bounds.first - 1n && cursor <= bounds.last : cursor === 0n;
    if (!kept) throw cursorExpired(cursor);
  }

  /**
   * The events after `cursor` that this process has read, oldest first, at most `limit`: from the
   * buffer, or from the outbox for a cursor older than the buffer. Event ids have no gaps, so a
   * first event that is not the next id means the ones between were removed: EVENT_CURSOR_EXPIRED.
   */
  async after(cursor: bigint, limit: number): Promise<readonly ChangeEvent[]> {
    const head = this.head;
    if (cursor >= head) return [];
    const buffered = this.#buffer;
    const oldest = buffered[0];
    let events: readonly ChangeEvent[];
    if (oldest && oldest.id <= cursor + 1n) {
      const from = firstAfter(buffered, cursor);
      events = buffered.slice(from, from + limit);
    } else {
      const rows = await this.#reader.after(cursor, limit);
      // The newest event is never removed, so nothing found means removed too.
      if (rows[0]?.id !== cursor + 1n) throw cursorExpired(cursor);
      events = rows.filter((row) => row.id <= head).map(fromRow);
    }
    return events;
  }

  /**
   * Events this process has just committed, as stored: delivered at once when they follow the last
   * event read, so that a write costs no read of the outbox. Otherwise (another process's events
   * came between, or a read is under way) the outbox is read, which finds them in their place.
   */
  offer(events: readonly ChangeEvent[]): void {
    const first = events[0];
    const last = events.at(-1);
    if (!first || !last || this.#head === undefined || last.id <= this.#head) return;
    if (this.#reading || first.id !== this.#head + 1n) this.refresh().catch(() => {});
    else this.#deliver(events);
  }

  /** Calls `watcher` whenever new events have been read. Returns the function that stops it. */
  watch(watcher: () => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** Hands every batch of events read to `listener`, in order. */
  onEvents(listener: (events: readonly ChangeEvent[]) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#reader.close();
  }

  async #pump(): Promise<void> {
    if (this.#reading || this.#head === undefined) return;
    this.#reading = true;
    try {
      while (this.#done < this.#asked) {
        const asked = this.#asked;
        let failure: unknown;
        try {
          await this.#readNew();
          if (this.#failing) this.#logger.info('the outbox can be read again');
          this.#failing = false;
        } catch (error) {
          failure = error;
          if (!this.#failing) this.#logger.warn({ err: error }, 'cannot read the outbox');
          this.#failing = true;
        }
        this.#done = asked;
        for (const waiter of this.#waiting.splice(0)) {
          if (waiter.asked > asked) this.#waiting.push(waiter);
          else if (failure === undefined) waiter.resolve();
          else waiter.reject(failure);
        }
      }
    } finally {
      this.#reading = false;
    }
  }

  async #readNew(): Promise<void> {
    for (;;) {
      const rows = await this.#reader.after(this.head, READ_BATCH);
      if (rows.length === 0) return;
      this.#deliver(rows.map(fromRow));
      if (rows.length < READ_BATCH) return;
    }
  }

  /** Keeps `events` (the next ones after the head, in order) and tells whoever waits for them. */
  #deliver(events: readonly ChangeEvent[]): void {
    this.#buffer.push(...events);
    if (this.#buffer.length > 2 * this.#bufferSize)
      this.#buffer = this.#buffer.slice(-this.#bufferSize);
    this.#head = (events.at(-1) as ChangeEvent).id;
    for (const listener of this.#eventListeners) listener(events);
    for (const watcher of this.#watchers) watcher();
  }
}

/** The index of the first event with an id above `cursor` (ids ascend). */
function firstAfter(events: readonly ChangeEvent[], cursor: bigint): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((events[middle] as ChangeEvent).id <= cursor) low = middle + 1;
    else high = middle;
  }
  return low;
}
