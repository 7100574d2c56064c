import type { Db } from './client.js';
import type { Queries } from './transaction.js';

/** A response as it is recorded for a key, and replayed. */
export interface RecordedResponse {
  status: number;
  /** The headers that matter to a retry (Location, ETag, Content-Type), lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/** What is stored under a key that another request holds or has answered. */
export type KeyHolder =
  | { state: 'running'; fingerprint: string; leaseUntil: number }
  | { state: 'answered'; fingerprint: string; response: RecordedResponse };

export interface Claim {
  /** The row's id: the caller and the key, hashed. */
  id: string;
  fingerprint: string;
  /** Who claims it: a random token of the request. */
  owner: string;
  /** Until when the claim holds (ms since the epoch) if its request stops answering. */
  leaseUntil: number;
  /** When the key is forgotten (ms since the epoch). */
  expiresAt: number;
}

/**
 * Claims a key for a request: a new key, a key whose time is up, or one whose request stopped
 * answering (its lease ran out) becomes this request's. Answers undefined when it did, else what
 * holds the key (read right after). The claim must commit before the request's own transaction
 * begins (so that a retry sees it running): run it on its own, or in a transaction of its own.
 */
export async function claimKey(
  db: Queries,
  claim: Claim,
  now: number,
): Promise<KeyHolder | undefined> {
  const { id, fingerprint, owner } = claim;
  const leaseUntil = BigInt(claim.leaseUntil);
  const expiresAt = BigInt(claim.expiresAt);
  const at = BigInt(now);
  // The same statement on SQLite and PostgreSQL: an upsert that takes over only a stale row.
  const claimed = await db.$queryRaw<{ owner: string }[]>`
    INSERT INTO "IdempotencyKey" ("id", "fingerprint", "owner", "leaseUntil", "expiresAt")
    VALUES (${id}, ${fingerprint}, ${owner}, ${leaseUntil}, ${expiresAt})
    ON CONFLICT ("id") DO UPDATE SET
      "fingerprint" = excluded."fingerprint", "owner" = excluded."owner",
      "leaseUntil" = excluded."leaseUntil", "expiresAt" = excluded."expiresAt",
      "status" = NULL, "headers" = NULL, "body" = NULL
    WHERE "IdempotencyKey"."expiresAt" <= ${at}
       OR ("IdempotencyKey"."status" IS NULL AND "IdempotencyKey"."leaseUntil" <= ${at})
    RETURNING "owner"`;
  if (claimed.length > 0) return undefined;
  const row = await db.idempotencyKey.findUnique({ where: { id } });
  // Gone in between (forgotten as expired): the caller claims again.
  if (!row) return { state: 'running', fingerprint, leaseUntil: now };
  if (row.status === null)
    return { state: 'running', fingerprint: row.fingerprint, leaseUntil: Number(row.leaseUntil) };
  return {
    state: 'answered',
    fingerprint: row.fingerprint,
    response: {
      status: row.status,
      headers: JSON.parse(row.headers ?? '{}') as Record<string, string>,
      body: row.body ?? '',
    },
  };
}

/**
 * Records the response of a claimed key, in `db`'s transaction when there is one (the write's own).
 * False when the claim is no longer this request's (its lease ran out and a retry took the key
 * over): then nothing was recorded, and the transaction must not commit.
 */
export async function recordResponse(
  db: Queries,
  claim: Pick<Claim, 'id' | 'owner'>,
  response: RecordedResponse,
): Promise<boolean> {
  const { count } = await db.idempotencyKey.updateMany({
    where: { id: claim.id, owner: claim.owner },
    data: {
      status: response.status,
      headers: JSON.stringify(response.headers),
      body: response.body,
      owner: null,
      leaseUntil: null,
    },
  });
  return count === 1;
}

/** Gives a claimed key up (its request answered what is not recorded): a retry runs anew. */
export async function releaseKey(db: Db, claim: Pick<Claim, 'id' | 'owner'>): Promise<void> {
  await db.idempotencyKey.deleteMany({ where: { id: claim.id, owner: claim.owner } });
}

/**
 * Forgets keys whose time is up, at most `batch` of them: short statements, so that the writes of
 * requests never wait long behind them. Answers how many were removed.
 */
export async function forgetExpiredKeys(db: Db, now: number, batch: number): Promise<number> {
  const expired = await db.idempotencyKey.findMany({
    where: { expiresAt: { lte: BigInt(now) } },
    select: { id: true },
    take: batch,
  });
  if (expired.length === 0) return 0;
  const { count } = await db.idempotencyKey.deleteMany({
    where: { id: { in: expired.map((row) => row.id) }, expiresAt: { lte: BigInt(now) } },
  });
  return count;
}
