import { Counter } from 'prom-client';
import type { Database } from '../db/client.js';
import { addUsageCounts, forgetUsageBefore, type UsageCountRow } from '../db/usage-counts.js';
import type { ClientName } from '../http/env.js';
import type { Logger } from '../logger.js';
import { logFailure } from '../observability/log-throttle.js';
import type { Metrics } from '../observability/metrics.js';

/** Which edge a coordinate belongs to: a GraphQL schema coordinate, or a REST operation id. */
export type Api = 'graphql' | 'rest';

export const DAY_MS = 86_400_000;

/** The day (days since 1970-01-01, UTC) of an instant. */
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

interface Tally {
  count: number;
  firstSeen: number;
  lastSeen: number;
}

/** A list of coordinates used together (one GraphQL document's, one REST operation's), per client. */
interface Entry {
  api: Api;
  clients: Map<ClientName, Tally>;
}

/** What was counted on one day, not written yet. */
interface Buffer {
  day: number;
  entries: Map<readonly string[], Entry>;
}

export interface UsageRecorderOptions {
  database: Database;
  logger: Logger;
  metrics: Metrics;
  /** Tallies held in memory between two writes; 0 counts nothing. */
  bufferEntries: number;
  flushIntervalMs: number;
  retentionDays: number;
}

/**
 * Counts which coordinates each client uses, off the requests' path: a request adds one to a tally
 * in memory (a few map lookups, nothing allocated once its document and client have been seen), and
 * a timer writes the tallies to the database every `flushIntervalMs`, added to what other replicas
 * wrote. Tallies are kept per list of coordinates (the list is the document's, made once) and per
 * client (ClientNames hands one object per name and version), and expanded into one count per
 * coordinate only when written. Memory is bounded: past `bufferEntries` tallies a use is dropped
 * (counted in `petstore_usage_dropped_total`) and a write starts at once. Counts that could not be
 * written (the database is down) are tried again with the next write, within the same bound.
 */
export class UsageRecorder {
  readonly #options: UsageRecorderOptions;
  #buffer: Buffer = { day: dayOf(Date.now()), entries: new Map() };
  /** Buffers of past days, waiting for the next write. */
  #sealed: Buffer[] = [];
  #tallies = 0;
  /** One-coordinate lists, so that the coordinates of variables are tallied like a document's. */
  #singles = new Map<string, readonly string[]>();
  /** Lists written as text (what the response cache keeps with an answer), one array per text. */
  readonly #listed = new Map<string, readonly string[]>();
  /** Rows a write could not store, tried again with the next one. */
  #retry: UsageCountRow[] = [];
  #writes: Promise<void> = Promise.resolve();
  #writeSoon = false;
  #prunedDay = -1;
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #dropped: Counter;
  readonly #failures: Counter;

  constructor(options: UsageRecorderOptions) {
    this.#options = options;
    const registers = [options.metrics.registry];
    this.#dropped = new Counter({
      name: 'petstore_usage_dropped_total',
      help: 'Uses of coordinates not counted: the usage buffer was full (USAGE_BUFFER_ENTRIES)',
      registers,
    });
    this.#failures = new Counter({
      name: 'petstore_usage_write_failures_total',
      help: 'Writes of usage counts to the database that failed (retried with the next write)',
      registers,
    });
    if (this.enabled) {
      this.#timer = setInterval(() => void this.flush(), options.flushIntervalMs);
      this.#timer.unref();
    }
  }

  /** Whether uses are counted at all (USAGE_BUFFER_ENTRIES above 0). */
  get enabled(): boolean {
    return this.#options.bufferEntries > 0;
  }

  /**
   * Counts one use of every coordinate of `coordinates` by `client`. The list is a key: pass the
   * same array object for the same use (a document's list, a route's), never a new one per request.
   */
  record(api: Api, coordinates: readonly string[], client: ClientName, now = Date.now()): void {
    if (!this.enabled || coordinates.length === 0) return;
    const day = dayOf(now);
    if (day !== this.#buffer.day) this.#seal(day);
    let entry = this.#buffer.entries.get(coordinates);
    let tally = entry?.clients.get(client);
    if (!tally) {
      if (this.#tallies >= this.#options.bufferEntries) {
        this.#dropped.inc();
        this.#flushNow();
        return;
      }
      if (!entry) {
        entry = { api, clients: new Map() };
        this.#buffer.entries.set(coordinates, entry);
      }
      tally = { count: 0, firstSeen: now, lastSeen: now };
      entry.clients.set(client, tally);
      this.#tallies++;
    }
    tally.count++;
    tally.lastSeen = now;
  }

  /** Counts one use of each coordinate, for lists made per request (a request's variables). */
  recordEach(api: Api, coordinates: readonly string[], client: ClientName, now = Date.now()): void {
    for (const coordinate of coordinates) {
      let single = this.#singles.get(coordinate);
      if (!single) {
        if (this.#singles.size >= this.#options.bufferEntries) {
          this.#dropped.inc();
          continue;
        }
        single = [coordinate];
        this.#singles.set(coordinate, single);
      }
      this.record(api, single, client, now);
    }
  }

  /**
   * Counts one use of the space-separated coordinates of `text`, the note an answer from the
   * response cache carries (UsageNote): one list per distinct text, at most `bufferEntries` texts.
   */
  recordListed(api: Api, text: string, client: ClientName, now = Date.now()): void {
    let list = this.#listed.get(text);
    if (!list) {
      const coordinates = text.split(' ');
      if (this.#listed.size >= this.#options.bufferEntries) {
        this.recordEach(api, coordinates, client, now);
        return;
      }
      list = coordinates;
      this.#listed.set(text, list);
    }
    this.record(api, list, client, now);
  }

  /**
   * Writes everything counted so far (what is counted meanwhile waits for the next write). Writes
   * run one at a time; a failure is logged and its counts kept for the next one.
   */
  flush(): Promise<void> {
    this.#writes = this.#writes.then(() =>
      this.#write().catch((error: unknown) => {
        this.#options.logger.error({ err: error }, 'usage counts could not be written');
      }),
    );
    return this.#writes;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.flush();
  }

  #seal(day: number): void {
    this.#sealed.push(this.#buffer);
    this.#buffer = { day, entries: new Map() };
    this.#flushNow();
  }

  #flushNow(): void {
    if (this.#writeSoon) return;
    this.#writeSoon = true;
    setImmediate(() => {
      this.#writeSoon = false;
      void this.flush();
    });
  }

  async #write(): Promise<void> {
    const buffers = [...this.#sealed, this.#buffer];
    this.#sealed = [];
    this.#buffer = { day: this.#buffer.day, entries: new Map() };
    this.#tallies = 0;
    this.#singles = new Map();
    const rows = rowsOf(buffers, this.#retry);
    this.#retry = [];
    const { database, logger } = this.#options;
    if (rows.length > 0) {
      const { failed, error } = await addUsageCounts(database.prisma, database.dialect, rows);
      if (failed.length > 0) {
        this.#failures.inc();
        logFailure(
          logger,
          { level: 'warn', message: 'usage counts could not be written', throttled: true },
          { err: error },
        );
        const kept = failed.slice(0, this.#options.bufferEntries);
        this.#dropped.inc(failed.length - kept.length);
        this.#retry = kept;
      }
    }
    await this.#prune();
  }

  /** Forgets the days past the retention, once a day per process. */
  async #prune(): Promise<void> {
    const today = dayOf(Date.now());
    if (this.#prunedDay === today) return;
    try {
      await forgetUsageBefore(
        this.#options.database.prisma,
        today - this.#options.retentionDays + 1,
      );
      this.#prunedDay = today;
    } catch (error) {
      logFailure(
        this.#options.logger,
        { level: 'warn', message: 'old usage counts could not be removed', throttled: true },
        { err: error },
      );
    }
  }
}

/** The tallies as one row per day, coordinate and client, added up (and the rows to retry). */
function rowsOf(buffers: readonly Buffer[], retry: readonly UsageCountRow[]): UsageCountRow[] {
  const rows = new Map<string, UsageCountRow>();
  const add = (row: UsageCountRow) => {
    const key = `${row.day}\n${row.api}\n${row.coordinate}\n${row.clientName}\n${row.clientVersion}`;
    const held = rows.get(key);
    if (!held) {
      rows.set(key, { ...row });
      return;
    }
    held.count += row.count;
    held.firstSeen = Math.min(held.firstSeen, row.firstSeen);
    held.lastSeen = Math.max(held.lastSeen, row.lastSeen);
  };
  for (const row of retry) add(row);
  for (const { day, entries } of buffers) {
    for (const [coordinates, { api, clients }] of entries) {
      for (const [client, tally] of clients) {
        for (const coordinate of coordinates) {
          add({
            day,
            api,
            coordinate,
            clientName: client.name,
            clientVersion: client.version,
            ...tally,
          });
        }
      }
    }
  }
  return [...rows.values()];
}
