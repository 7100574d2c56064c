import { Prisma } from '../generated/sqlite/client.js';
import type { Database, Db } from './client.js';
import type { RunStatement } from './raw-sql.js';

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

interface KeyRow {
  owner: string | null;
  fingerprint: string;
  leaseUntil: number | string | null;
  status: number | string | null;
  headers: string | null;
  body: string | null;
}

/**
 * Claims a key for a request, in one statement that commits on its own: a new key, a key whose
 * time is up, or one whose request stopped answering (its lease ran out) becomes this request's.
 * Answers undefined when it did, else what holds the key. The statement is an upsert that rewrites
 * a stale row as this claim and leaves any other as it is, returning the row either way, so that
 * what holds the key is read in the same step (PostgreSQL waits there for a transaction recording
 * the key; on SQLite's one connection no other request's transaction runs between the claim and
 * the read, so a retry sees the first request running, never done). It commits on its own
 * (`Database.query`), before the request's transaction begins.
 */
export async function claimKey(
  database: Pick<Database, 'query'>,
  claim: Claim,
  now: number,
): Promise<KeyHolder | undefined> {
  const { id, fingerprint, owner } = claim;
  const leaseUntil = BigInt(claim.leaseUntil);
  const expiresAt = BigInt(claim.expiresAt);
  const at = BigInt(now);
  const stale = Prisma.sql`("IdempotencyKey"."expiresAt" <= ${at}
    OR ("IdempotencyKey"."status" IS NULL AND "IdempotencyKey"."leaseUntil" <= ${at}))`;
  const claimed = (column: string) =>
    Prisma.sql`${Prisma.raw(`"${column}"`)} = CASE WHEN ${stale} THEN excluded.${Prisma.raw(`"${column}"`)} ELSE "IdempotencyKey".${Prisma.raw(`"${column}"`)} END`;
  const cleared = (column: string) =>
    Prisma.sql`${Prisma.raw(`"${column}"`)} = CASE WHEN ${stale} THEN NULL ELSE "IdempotencyKey".${Prisma.raw(`"${column}"`)} END`;
  const [row] = await database.query<KeyRow>(Prisma.sql`
    INSERT INTO "IdempotencyKey" ("id", "fingerprint", "owner", "leaseUntil", "expiresAt")
    VALUES (${id}, ${fingerprint}, ${owner}, ${leaseUntil}, ${expiresAt})
    ON CONFLICT ("id") DO UPDATE SET
      ${Prisma.join(
        [
          ...['fingerprint', 'owner', 'leaseUntil', 'expiresAt'].map(claimed),
          ...['status', 'headers', 'body'].map(cleared),
        ],
        ', ',
      )}
    RETURNING "owner", "fingerprint", "leaseUntil", "status", "headers", "body"`);
  if (!row) throw new Error('the idempotency key claim returned no row');
  if (row.owner === owner) return undefined;
  if (row.status === null)
    return { state: 'running', fingerprint: row.fingerprint, leaseUntil: Number(row.leaseUntil) };
  return {
    state: 'answered',
    fingerprint: row.fingerprint,
    response: {
      status: Number(row.status),
      headers: JSON.parse(row.headers ?? '{}') as Record<string, string>,
      body: row.body ?? '',
    },
  };
}

/**
 * Records the response of a claimed key, through `query`: the write's own transaction's statements,
 * or the database's once nothing was written. False when the claim is no longer this request's (its
 * lease ran out and a retry took the key over): then nothing was recorded, and the transaction
 * must not commit.
 */
export async function recordResponse(
  query: RunStatement,
  claim: Pick<Claim, 'id' | 'owner'>,
  response: RecordedResponse,
): Promise<boolean> {
  const rows = await query(Prisma.sql`
    UPDATE "IdempotencyKey"
       SET "status" = ${response.status}, "headers" = ${JSON.stringify(response.headers)},
           "body" = ${response.body}, "owner" = NULL, "leaseUntil" = NULL
     WHERE "id" = ${claim.id} AND "owner" = ${claim.owner}
    RETURNING "id"`);
  return rows.length === 1;
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
