import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../db/client.js';
import {
  claimKey,
  forgetExpiredKeys,
  type RecordedResponse,
  recordResponse,
  releaseKey,
} from '../db/idempotency-keys.js';
import type { RawSql, RunStatement } from '../db/raw-sql.js';
import { inTransaction, rawSqlIn, type Tx } from '../db/transaction.js';
import type { Change, ChangeFeed } from '../domain/changes.js';
import type { Viewer } from '../domain/context.js';
import { DomainError, retryAfter, validationFailed } from '../errors/catalogue.js';
import type { Logger } from '../logger.js';

export type { RecordedResponse };

/** The request header (IETF draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY = 'Idempotency-Key';
/** Set on a response that was recorded for the key and is sent again. */
export const IDEMPOTENT_REPLAYED = 'Idempotent-Replayed';

/** The longest key accepted. */
export const MAX_KEY_LENGTH = 255;

/**
 * The key of a request as sent: 1-255 printable ASCII characters (spaces inside included). The
 * whole value is the key: the draft's quoted form (`"4f1c…"`) works as it is.
 */
export function parseKey(value: string): string {
  if (value.length < 1 || value.length > MAX_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(value)) {
    throw validationFailed(
      `${IDEMPOTENCY_KEY} must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters, e.g. a UUID`,
    );
  }
  return value;
}

/**
 * Whose keys a request's are: its token's subject. A key needs one (else 400), so that two callers
 * never share a key space: an address is shared by many, and a token without `sub` names nobody.
 */
export function keyOwner(viewer: Viewer): string {
  if (viewer.authenticated && viewer.subject) return `sub:${viewer.subject}`;
  throw validationFailed(
    `${IDEMPOTENCY_KEY} needs a bearer token with a subject (sub): keys belong to it; send the request with such a token, or without the key`,
  );
}

/** What makes two requests "the same request" for a key: a hash of their parts, in order. */
export function fingerprint(...parts: readonly (string | Uint8Array)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    hash.update(String(typeof part === 'string' ? part.length : part.byteLength));
    hash.update(':');
    hash.update(part);
  }
  return hash.digest('base64url');
}

/** 409 IDEMPOTENCY_KEY_IN_FLIGHT, with the seconds to wait (the Retry-After header). */
export class KeyInFlight extends DomainError {
  constructor(retryAfterSeconds: number) {
    super(
      'IDEMPOTENCY_KEY_IN_FLIGHT',
      `The first request with this ${IDEMPOTENCY_KEY} is still running; retry after ${retryAfterSeconds} s to get its response`,
      retryAfter(retryAfterSeconds),
    );
  }
}

/**
 * 400: the response is larger than a key records (IDEMPOTENCY_RECORD_MAX_BYTES); thrown in the
 * request's transaction, which rolls back, so nothing is written without its record.
 */
export class ResponseTooLarge extends DomainError {
  constructor(bytes: number, maxBytes: number) {
    super(
      'VALIDATION_FAILED',
      `The response to this request would be ${bytes} bytes, more than the ${maxBytes} bytes an ${IDEMPOTENCY_KEY} records: nothing was written; select less (or send it without the key)`,
    );
  }
}

/** The bytes a recorded response takes in its row. */
function recordBytes({ headers, body }: RecordedResponse): number {
  let bytes = Buffer.byteLength(body);
  for (const [name, value] of Object.entries(headers)) bytes += name.length + value.length + 6;
  return bytes;
}

function reused(): DomainError {
  return new DomainError(
    'IDEMPOTENCY_KEY_REUSED',
    `This ${IDEMPOTENCY_KEY} was used for a different request (method, path or body); send a new key for a new request`,
  );
}

/**
 * Whether a response is recorded for its key: below 500, except 401, 403 and 429 (a request
 * refused before it was authorised, or told to slow down, runs anew when retried).
 */
export function isRecorded(status: number): boolean {
  return status < 500 && status !== 401 && status !== 403 && status !== 429;
}

/**
 * A change feed that holds what is published until `flush`: until the transaction commits (the
 * events themselves are recorded in that transaction, as any write's).
 */
function heldChanges(feed: ChangeFeed) {
  // Each write's changes as it published them: the feed knows their events by them.
  const held: (readonly Change[])[] = [];
  const changes: ChangeFeed = {
    record: (query, recorded, cause) => feed.record(query, recorded, cause),
    writer: (cause) => feed.writer(cause),
    appended: (appended, writer, last) => feed.appended(appended, writer, last),
    publish: async (published) => {
      held.push(published);
    },
    subscribe: (listener) => feed.subscribe(listener),
  };
  return {
    changes,
    flush: async () => {
      for (const published of held.splice(0)) await feed.publish(published);
    },
  };
}

/**
 * What a keyed request's work runs with: its transaction (Prisma's client in it, and its raw SQL),
 * and changes held until it commits.
 */
export interface KeyedScope {
  db: Tx;
  sql: RawSql;
  changes: ChangeFeed;
}

/** A key this request holds: it runs, then records its response or lets the key go. */
export interface KeyedRequest {
  /**
   * Runs `work` in one transaction, records the response it gives in that same transaction, and
   * commits: the write and its record are there together or not at all. A response larger than a
   * record rolls everything back with ResponseTooLarge. The changes published
   * meanwhile reach the feed after the commit, never before and never after a rollback. A failure
   * of `work` rolls everything back and is thrown: then call `fail`.
   */
  commit<T>(
    work: (scope: KeyedScope) => Promise<{ value: T; response: RecordedResponse }>,
  ): Promise<T>;
  /**
   * After a failure, with nothing written: records `response` for the key (a retry gets it again),
   * or, without one (a 5xx, or a status that is not recorded), lets the key go, so that a retry runs.
   */
  fail(response: RecordedResponse | undefined): Promise<void>;
}

export type Begun =
  | { kind: 'replay'; response: RecordedResponse }
  | { kind: 'run'; request: KeyedRequest };

export interface IdempotencyOptions {
  database: Database;
  /** Where committed writes are published. */
  changes: ChangeFeed;
  logger: Logger;
  /** How long a key and its response are kept (IDEMPOTENCY_KEY_TTL_HOURS). */
  ttlHours: number;
  /** The largest response recorded (IDEMPOTENCY_RECORD_MAX_BYTES). */
  maxRecordBytes: number;
  /**
   * How long a key stays claimed by a request that stops answering (a crash): past the request
   * time limit, after which the request has been answered 503 and a retry may run it anew.
   */
  leaseMs: number;
  /** How often expired keys are removed. */
  sweepEveryMs?: number;
}

export interface Idempotency {
  /**
   * Claims `key` of `caller` for a request with `fingerprint`: `replay` when it was answered
   * before (the same request), `run` when this request holds it now. Throws 422
   * IDEMPOTENCY_KEY_REUSED for another request, 409 IDEMPOTENCY_KEY_IN_FLIGHT while the first
   * runs.
   */
  begin(caller: string, key: string, fingerprint: string): Promise<Begun>;
  /** Removes the keys whose time is up (also done every few minutes in the background). */
  sweep(): Promise<number>;
  /** Stops the background sweep. */
  stop(): void;
}

const SWEEP_BATCH = 500;
const DEFAULT_SWEEP_MS = 10 * 60_000;

export function createIdempotency(options: IdempotencyOptions): Idempotency {
  const { database, logger } = options;
  const db = database.prisma;
  const ttlMs = options.ttlHours * 3_600_000;
  let stopped = false;

  const keyedRequest = (id: string, owner: string): KeyedRequest => {
    const claim = { id, owner };
    /** `work`'s value, once its response is recorded through its transaction's `query`. */
    const recorded = async <T>(
      query: RunStatement,
      work: () => Promise<{ value: T; response: RecordedResponse }>,
    ): Promise<T> => {
      const { value, response } = await work();
      const bytes = recordBytes(response);
      if (bytes > options.maxRecordBytes) throw new ResponseTooLarge(bytes, options.maxRecordBytes);
      if (!(await recordResponse(query, claim, response))) {
        // A retry took the key over after the lease ran out: it runs the write instead.
        throw new Error('the idempotency key was taken over while its request ran');
      }
      return value;
    };
    return {
      async commit(work) {
        // The one transaction model (src/db/transaction.ts): the domain's own transactions join it.
        const held = heldChanges(options.changes);
        const value = await inTransaction(db, (tx) => {
          const sql = rawSqlIn(tx);
          return recorded(sql.query, () => work({ db: tx, sql, changes: held.changes }));
        });
        await held.flush();
        return value;
      },
      async fail(response) {
        try {
          // A refusal larger than a record (a bound set low) is not kept: its retry runs anew.
          if (
            response &&
            isRecorded(response.status) &&
            recordBytes(response) <= options.maxRecordBytes
          )
            await recordResponse(database.query, claim, response);
          else await releaseKey(db, claim);
        } catch (error) {
          // The lease runs out instead: a retry then runs anew.
          logger.warn({ err: error }, 'could not record or release an idempotency key');
        }
      },
    };
  };

  const begin = async (caller: string, key: string, print: string): Promise<Begun> => {
    const id = fingerprint(caller, key);
    // A UUID: Node hands them out from a pool it fills in bulk (randomBytes costs a call each).
    const owner = randomUUID();
    const now = Date.now();
    const claim = {
      ...{ id, fingerprint: print, owner },
      ...{ leaseUntil: now + options.leaseMs, expiresAt: now + ttlMs },
    };
    const holder = await claimKey(database, claim, now);
    if (!holder) return { kind: 'run', request: keyedRequest(id, owner) };
    if (holder.fingerprint !== print) throw reused();
    if (holder.state === 'answered') return { kind: 'replay', response: holder.response };
    throw new KeyInFlight(1);
  };

  const sweep = async () => {
    let removed = 0;
    for (;;) {
      const count = await forgetExpiredKeys(db, Date.now(), SWEEP_BATCH);
      removed += count;
      if (count < SWEEP_BATCH || stopped) return removed;
      // Let requests in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const timer = setInterval(() => {
    sweep().catch((error) => logger.debug({ err: error }, 'expired idempotency keys not removed'));
  }, options.sweepEveryMs ?? DEFAULT_SWEEP_MS);
  timer.unref();

  return {
    begin,
    sweep,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
