import { Prisma } from '../generated/sqlite/client.js';
import type { RawSql } from './raw-sql.js';

/**
 * The response cache's fence in the database (the one row of `CacheFence`): what every replica
 * can read when Redis cannot be written (src/cache/redis-store.ts). Its epoch only grows.
 */
export interface CacheFenceRow {
  /** The epoch now (0 before any raise). */
  read(): Promise<number>;
  /** Raises the epoch by one, committed when it answers; answers the new epoch. */
  raise(): Promise<number>;
}

// Text: the driver may read a BIGINT as a double or a string.
const epochOf = (rows: { epoch: string }[]) => Number(rows[0]?.epoch ?? 0);

export function cacheFenceRow(sql: RawSql): CacheFenceRow {
  return {
    read: async () =>
      epochOf(
        await sql.query<{ epoch: string }>(
          Prisma.sql`SELECT CAST("epoch" AS TEXT) AS "epoch" FROM "CacheFence" WHERE "id" = 1`,
        ),
      ),
    raise: async () =>
      epochOf(
        await sql.query<{ epoch: string }>(Prisma.sql`
          INSERT INTO "CacheFence" ("id", "epoch") VALUES (1, 1)
          ON CONFLICT ("id") DO UPDATE SET "epoch" = "CacheFence"."epoch" + 1
          RETURNING CAST("epoch" AS TEXT) AS "epoch"`),
      ),
  };
}
