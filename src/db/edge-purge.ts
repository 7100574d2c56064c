import { Prisma } from '../generated/sqlite/client.js';
import type { RawSql } from './raw-sql.js';

/**
 * The CDN purges' place in the outbox (the one row of `EdgePurge`, src/edge-cache/): the last event
 * purged, and which process purges, under a lease it renews. Every statement is one UPDATE (or an
 * INSERT that does nothing once the row exists), so replicas on one database agree on both.
 */
export interface EdgePurgeRow {
  /**
   * Takes or renews the lease for `owner` until `until` (ms since the epoch) when it is free,
   * expired at `now` or already its own; makes the row at `start` when there is none. Answers the
   * last event purged while `owner` holds it, else undefined.
   */
  claim(owner: number, now: number, until: number, start: bigint): Promise<bigint | undefined>;
  /** Moves the cursor to `last` while `owner` holds the lease; answers whether it did. */
  advance(owner: number, last: bigint, until: number): Promise<boolean>;
  /** Lets the lease go at once (a clean shutdown), so that another replica takes over. */
  release(owner: number): Promise<void>;
  /** The last event purged, or undefined before any purger ran. */
  read(): Promise<bigint | undefined>;
}

// Text: the driver may read a BIGINT as a double or a string.
const lastOf = (rows: { last: string }[]) => (rows[0] ? BigInt(rows[0].last) : undefined);

export function edgePurgeRow(sql: RawSql): EdgePurgeRow {
  return {
    async claim(owner, now, until, start) {
      await sql.query(Prisma.sql`
        INSERT INTO "EdgePurge" ("id", "lastEventId", "owner", "leaseUntil")
        VALUES (1, ${start}, 0, 0)
        ON CONFLICT ("id") DO NOTHING`);
      return lastOf(
        await sql.query<{ last: string }>(Prisma.sql`
          UPDATE "EdgePurge" SET "owner" = ${owner}, "leaseUntil" = ${until}
           WHERE "id" = 1 AND ("owner" = ${owner} OR "leaseUntil" < ${now})
          RETURNING CAST("lastEventId" AS TEXT) AS "last"`),
      );
    },
    async advance(owner, last, until) {
      const rows = await sql.query<{ last: string }>(Prisma.sql`
        UPDATE "EdgePurge" SET "lastEventId" = ${last}, "leaseUntil" = ${until}
         WHERE "id" = 1 AND "owner" = ${owner}
        RETURNING CAST("lastEventId" AS TEXT) AS "last"`);
      return rows.length === 1;
    },
    async release(owner) {
      await sql.query(Prisma.sql`
        UPDATE "EdgePurge" SET "leaseUntil" = 0 WHERE "id" = 1 AND "owner" = ${owner}`);
    },
    read: async () =>
      lastOf(
        await sql.query<{ last: string }>(
          Prisma.sql`SELECT CAST("lastEventId" AS TEXT) AS "last" FROM "EdgePurge" WHERE "id" = 1`,
        ),
      ),
  };
}
