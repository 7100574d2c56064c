import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { Prisma } from '../generated/sqlite/client.js';
import type { Db, SqlDialect } from './client.js';
import type { RunStatement } from './raw-sql.js';

/** A change as the outbox stores it. */
export interface EventRow {
  entity: string;
  kind: string;
  /** The pet, category or order id; for inventory, the pet's. */
  entityId: bigint;
  /** An order's pet. */
  petId: bigint | null;
}

/** A committed event, as read back. */
export interface StoredEvent extends EventRow {
  id: bigint;
  /** The process that wrote it (a random number per start). */
  origin: number;
  /** The write's trace context, when it was traced. */
  cause: string | null;
}

/** Who writes the events, when, and where it notifies (`eventChannel`). */
export interface Writer {
  origin: number;
  cause: string | undefined;
  at: number;
  channel: string;
}

/**
 * The NOTIFY channel of the events of one database schema (several deployments, or test files, may
 * share a PostgreSQL database): a fixed prefix and a hash, within PostgreSQL's 63 characters.
 */
export function eventChannel(config: DatabaseConfig): string {
  const schema = config.provider === 'postgresql' ? (config.schema ?? 'public') : config.file;
  return `petstore_events_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

/**
 * Appends the events of a write to the outbox in its transaction (`query` runs a statement in it):
 * one statement, so that they commit with the write or not at all. Their ids follow the commit
 * order with no gap. On SQLite the single writer does that (AUTOINCREMENT, the transaction holds
 * the database). On PostgreSQL, `appendingEvents`.
 *
 * Answers the events as they are stored, with their ids (consecutive, in the order given), so that
 * the writer can deliver them once committed without reading them back.
 */
export async function appendEvents(
  query: RunStatement,
  dialect: SqlDialect,
  events: readonly EventRow[],
  writer: Writer,
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  if (dialect === 'sqlite') {
    const { origin, cause, at } = writer;
    const rows = events.map(
      (event) =>
        Prisma.sql`(${event.entity}, ${event.kind}, ${event.entityId}, ${event.petId}, ${origin}, ${cause ?? null}, ${at})`,
    );
    // The one writer numbers the rows in the order of VALUES. Text: the driver reads integers as
    // doubles, rounded above 2^53.
    const ids = await query<{ id: string }>(Prisma.sql`
      INSERT INTO "ChangeEvent" ("entity", "kind", "entityId", "petId", "origin", "cause", "createdAt")
      VALUES ${Prisma.join(rows)}
      RETURNING CAST("id" AS TEXT) AS "id"`);
    const last = ids.reduce((last, { id }) => (BigInt(id) > last ? BigInt(id) : last), 0n);
    return storedEvents(events, writer, last);
  }
  const rows = events.map(
    (event, index) =>
      Prisma.sql`(${index + 1}::integer, ${event.entity}, ${event.kind}, ${event.entityId}::bigint, ${event.petId}::bigint)`,
  );
  const [appended] = await query<{ last: string }>(Prisma.sql`
    WITH ${appendingEvents(
      Prisma.sql`SELECT * FROM (VALUES ${Prisma.join(rows)}) AS e(n, "entity", "kind", "entityId", "petId")`,
      writer,
    )}
    SELECT "last" FROM appended`);
  if (!appended) throw new Error('appending the events returned no row');
  return storedEvents(events, writer, BigInt(appended.last));
}

/**
 * PostgreSQL: the common table expressions that append the rows of the query `events` (columns
 * n, counting from 1 in the order of the events, "entity", "kind", "entityId", "petId") to the
 * outbox, for a statement that begins `WITH` them; the CTE `appended` then has one row, the last
 * event's id as text in "last", when there was any. A write's own statement can append its events
 * this way, with no transaction around it (placing an order: src/orders/store.ts).
 *
 * The ids are taken from the one row of ChangeEventSequence, which the statement's transaction then
 * holds until it commits: writers queue there for as long as a commit takes, and an id is never
 * visible before a smaller one. The statement also notifies `writer.channel`, delivered at the
 * commit (so a process killed right after its commit still wakes the other replicas), with the
 * writer's origin and the last event's id as its payload (`<origin>:<id>`). With no event, it
 * takes no lock and notifies no one.
 */
export function appendingEvents(events: Prisma.Sql, writer: Writer): Prisma.Sql {
  const { origin, cause, at, channel } = writer;
  return Prisma.sql`events AS (${events}),
    sequence AS (
      UPDATE "ChangeEventSequence" SET "last" = "last" + counted."count"
        FROM (SELECT count(*)::integer AS "count" FROM events) AS counted
       WHERE "id" = 1 AND counted."count" > 0
      RETURNING "last", counted."count"
    ), added AS (
      INSERT INTO "ChangeEvent" ("id", "entity", "kind", "entityId", "petId", "origin", "cause", "createdAt")
      SELECT sequence."last" - sequence."count" + e.n, e."entity", e."kind", e."entityId", e."petId",
             ${origin}::integer, ${cause ?? null}::text, ${at}::bigint
        FROM sequence, events AS e
      RETURNING "id"
    ), appended AS (
      -- pg_notify's void, as text: a result column Prisma can read. The payload names the writer,
      -- which has its events already (it hands them to its delivery as it commits).
      SELECT newest."last"::text AS "last",
             pg_notify(${channel}, ${origin}::integer || ':' || newest."last")::text AS "notified"
        FROM (SELECT max("id") AS "last" FROM added) AS newest
       WHERE newest."last" IS NOT NULL
    )`;
}

/** The events as stored by `writer`, the last of them with the id `last`. */
export function storedEvents(
  events: readonly EventRow[],
  writer: Writer,
  last: bigint,
): StoredEvent[] {
  return events.map((event, index) => ({
    ...event,
    id: last - BigInt(events.length - 1 - index),
    origin: writer.origin,
    cause: writer.cause ?? null,
  }));
}

/**
 * Removes the oldest events written before `before` (ms since the epoch), at most `batch` of them
 * and never the newest event, so that the events kept are always the newest ones with no gap and
 * the last id handed out stays known. Answers how many went.
 */
export function removeEventsBefore(db: Db, before: number, batch: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM "ChangeEvent"
     WHERE "id" <= (SELECT max("id") FROM (
                      SELECT "id", "createdAt" FROM "ChangeEvent" ORDER BY "id" LIMIT ${batch}
                    ) AS oldest
                     WHERE "createdAt" < ${before})
       AND "id" < (SELECT max("id") FROM "ChangeEvent")`;
}

/** The ids of the events kept: the oldest and the newest; undefined while there is none. */
export interface EventBounds {
  first: bigint;
  last: bigint;
}

/**
 * Reads the outbox on a connection of its own (not the pool's, so that delivery never waits behind
 * requests, and the requests' statement counts stay theirs). On PostgreSQL it also LISTENs for
 * the writers' notifications, and reconnects by itself.
 */
export interface EventReader {
  /** The committed events after `cursor`, oldest first, at most `limit`. */
  after(cursor: bigint, limit: number): Promise<StoredEvent[]>;
  bounds(): Promise<EventBounds | undefined>;
  close(): Promise<void>;
}

export interface ReaderOptions {
  /**
   * A writer's notification arrived (PostgreSQL), with the writer's origin (undefined if the
   * payload does not name one).
   */
  onNotify(origin: number | undefined): void;
  /** The connection is (again) up: notifications sent while it was down were lost. */
  onConnect(): void;
  onError(error: unknown): void;
}

export function openEventReader(config: DatabaseConfig, options: ReaderOptions): EventReader {
  return config.provider === 'sqlite'
    ? sqliteReader(config.file, options)
    : postgresReader(config, options);
}

const selectEvents = `SELECT "id", "entity", "kind", "entityId", "petId", "origin", "cause"
  FROM "ChangeEvent" WHERE "id" > $cursor ORDER BY "id" LIMIT $limit`;

function sqliteReader(file: string, options: ReaderOptions): EventReader {
  const connection = new BetterSqlite3(file, { fileMustExist: true });
  connection.pragma('busy_timeout = 5000');
  const events = connection.prepare(
    selectEvents.replace('$cursor', '@cursor').replace('$limit', '@limit'),
  );
  events.safeIntegers(true);
  const bounds = connection.prepare(
    'SELECT min("id") AS "first", max("id") AS "last" FROM "ChangeEvent"',
  );
  bounds.safeIntegers(true);
  queueMicrotask(options.onConnect);
  return {
    async after(cursor, limit) {
      const rows = events.all({ cursor, limit }) as Record<string, unknown>[];
      return rows.map(storedEvent);
    },
    async bounds() {
      const row = bounds.get() as { first: bigint | null; last: bigint | null };
      return row.first === null || row.last === null
        ? undefined
        : { first: row.first, last: row.last };
    },
    async close() {
      connection.close();
    },
  };
}

function storedEvent(row: Record<string, unknown>): StoredEvent {
  return {
    id: BigInt(row.id as bigint | string),
    entity: String(row.entity),
    kind: String(row.kind),
    entityId: BigInt(row.entityId as bigint | string),
    petId: row.petId == null ? null : BigInt(row.petId as bigint | string),
    origin: Number(row.origin),
    cause: row.cause == null ? null : String(row.cause),
  };
}

/** The writer's origin in a notification's payload (`<origin>:<last event id>`), or undefined. */
function originOf(payload: string | undefined): number | undefined {
  const origin = /^(\d+):\d+$/.exec(payload ?? '')?.[1];
  return origin === undefined ? undefined : Number(origin);
}

const RECONNECT_MS = { first: 100, max: 5000 };
/** The reader's statements are small reads by key; none should run anywhere near this. */
const READ_TIMEOUT_MS = 10_000;

function postgresReader(
  config: Extract<DatabaseConfig, { provider: 'postgresql' }>,
  options: ReaderOptions,
): EventReader {
  const url = new URL(config.url);
  url.searchParams.delete('schema');
  const channel = eventChannel(config);
  let client: pg.Client | undefined;
  let ready: Promise<pg.Client> | undefined;
  let closed = false;
  let delay = RECONNECT_MS.first;
  let retry: NodeJS.Timeout | undefined;

  const lost = (dead: pg.Client, error?: unknown) => {
    if (client !== dead) return;
    client = undefined;
    ready = undefined;
    dead.removeAllListeners('notification');
    dead.end().catch(() => {});
    if (error) options.onError(error);
    if (closed) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => {});
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, RECONNECT_MS.max);
  };

  const connect = (): Promise<pg.Client> => {
    if (ready) return ready;
    const next = new pg.Client({
      connectionString: url.toString(),
      options: [
        config.schema ? `-c search_path="${config.schema}"` : '',
        `-c statement_timeout=${READ_TIMEOUT_MS}`,
      ]
        .filter(Boolean)
        .join(' '),
    });
    client = next;
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next));
    next.on('notification', (message) => {
      if (message.channel === channel) options.onNotify(originOf(message.payload));
    });
    ready = next
      .connect()
      .then(() => next.query(`LISTEN "${channel}"`))
      .then(() => {
        delay = RECONNECT_MS.first;
        options.onConnect();
        return next;
      })
      .catch((error) => {
        lost(next, error);
        throw error;
      });
    return ready;
  };
  connect().catch(() => {});

  const query = async (text: string, values: unknown[]) => (await connect()).query(text, values);
  return {
    async after(cursor, limit) {
      const sql = selectEvents.replace('$cursor', '$1').replace('$limit', '$2');
      const { rows } = await query(sql, [String(cursor), limit]);
      return rows.map(storedEvent);
    },
    async bounds() {
      const { rows } = await query(
        'SELECT min("id")::text AS "first", max("id")::text AS "last" FROM "ChangeEvent"',
        [],
      );
      const row = rows[0] as { first: string | null; last: string | null } | undefined;
      return row?.first == null || row.last == null
        ? undefined
        : { first: BigInt(row.first), last: BigInt(row.last) };
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const open = client;
      client = undefined;
      ready = undefined;
      await open?.end().catch(() => {});
    },
  };
}
