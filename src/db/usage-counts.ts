import { Prisma } from '../generated/sqlite/client.js';
import type { Db, SqlDialect } from './client.js';

/** One count of the usage table: a client's uses of one coordinate on one day. */
export interface UsageCountRow {
  /** Days since 1970-01-01, UTC. */
  day: number;
  api: string;
  coordinate: string;
  clientName: string;
  clientVersion: string;
  count: number;
  /** ms since the epoch. */
  firstSeen: number;
  lastSeen: number;
}

/** Rows per statement: short statements, so that requests never wait long behind a write. */
const ROWS_PER_STATEMENT = 200;

const keyOf = (row: UsageCountRow) =>
  [row.day, row.api, row.coordinate, row.clientName, row.clientVersion].join('\n');

/**
 * Adds counts to the stored ones (a row that is not there yet is inserted), in statements of a few
 * hundred rows that each commit on their own. Rows go in key order, so that two replicas adding to
 * the same rows at once lock them in the same order and never deadlock. `rows` must hold each key
 * once. Resolves with the rows it could not write (those of the statement that failed and after),
 * so that they can be tried again.
 */
export async function addUsageCounts(
  db: Db,
  dialect: SqlDialect,
  rows: readonly UsageCountRow[],
): Promise<{ failed: UsageCountRow[]; error?: unknown }> {
  const sorted = [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
  const [least, greatest] = dialect === 'postgresql' ? ['LEAST', 'GREATEST'] : ['MIN', 'MAX'];
  for (let start = 0; start < sorted.length; start += ROWS_PER_STATEMENT) {
    const chunk = sorted.slice(start, start + ROWS_PER_STATEMENT);
    const values = chunk.map(
      (row) =>
        Prisma.sql`(${row.day}, ${row.api}, ${row.coordinate}, ${row.clientName}, ${row.clientVersion}, ${BigInt(row.count)}, ${BigInt(row.firstSeen)}, ${BigInt(row.lastSeen)})`,
    );
    try {
      await db.$executeRaw`
        INSERT INTO "UsageCount"
          ("day", "api", "coordinate", "clientName", "clientVersion", "count", "firstSeen", "lastSeen")
        VALUES ${Prisma.join(values, ', ')}
        ON CONFLICT ("day", "api", "coordinate", "clientName", "clientVersion") DO UPDATE SET
          "count" = "UsageCount"."count" + excluded."count",
          "firstSeen" = ${Prisma.raw(least)}("UsageCount"."firstSeen", excluded."firstSeen"),
          "lastSeen" = ${Prisma.raw(greatest)}("UsageCount"."lastSeen", excluded."lastSeen")`;
    } catch (error) {
      return { failed: sorted.slice(start), error };
    }
  }
  return { failed: [] };
}

/** A client's uses of one coordinate over the days read, added up. */
export interface UsageTotal {
  api: string;
  coordinate: string;
  clientName: string;
  clientVersion: string;
  count: number;
  firstSeen: number;
  lastSeen: number;
}

/** The counts from `fromDay` on (of one coordinate when given), per coordinate and client. */
export async function readUsageTotals(
  db: Db,
  fromDay: number,
  coordinate?: string,
): Promise<UsageTotal[]> {
  const groups = await db.usageCount.groupBy({
    by: ['api', 'coordinate', 'clientName', 'clientVersion'],
    where: { day: { gte: fromDay }, ...(coordinate === undefined ? {} : { coordinate }) },
    _sum: { count: true },
    _min: { firstSeen: true },
    _max: { lastSeen: true },
    orderBy: [
      { coordinate: 'asc' },
      { api: 'asc' },
      { clientName: 'asc' },
      { clientVersion: 'asc' },
    ],
  });
  return groups.map((group) => ({
    api: group.api,
    coordinate: group.coordinate,
    clientName: group.clientName,
    clientVersion: group.clientVersion,
    count: Number(group._sum.count ?? 0),
    firstSeen: Number(group._min.firstSeen ?? 0),
    lastSeen: Number(group._max.lastSeen ?? 0),
  }));
}

/** The first day with a stored count (undefined when there is none). */
export async function firstUsageDay(db: Db): Promise<number | undefined> {
  const { _min } = await db.usageCount.aggregate({ _min: { day: true } });
  return _min.day ?? undefined;
}

/** Removes the days before `fromDay`; answers how many rows went. */
export async function forgetUsageBefore(db: Db, fromDay: number): Promise<number> {
  const { count } = await db.usageCount.deleteMany({ where: { day: { lt: fromDay } } });
  return count;
}
