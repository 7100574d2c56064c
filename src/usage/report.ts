import { z } from 'zod';
import type { UsageTotal } from '../db/usage-counts.js';

const seen = {
  /** Uses over the days the report covers. */
  count: z.number().int().min(0),
  /** The first and last use (RFC 3339, UTC). */
  firstSeen: z.iso.datetime(),
  lastSeen: z.iso.datetime(),
};

/**
 * What `GET /usage` answers, and what `npm run schema:check --usage` reads (from a file or a URL):
 * per coordinate (a GraphQL schema coordinate, or a REST operation id), the clients that used it,
 * their versions, counts, first and last seen.
 */
export const UsageReportSchema = z.object({
  generatedAt: z.iso.datetime(),
  /**
   * The first and last day covered (UTC dates): from the first day the database recorded a use
   * (at most the retention's days ago; today when it has recorded none) up to today.
   */
  from: z.iso.date(),
  to: z.iso.date(),
  coordinates: z.array(
    z.object({
      coordinate: z.string(),
      api: z.enum(['graphql', 'rest']),
      ...seen,
      clients: z.array(
        z.object({
          name: z.string(),
          ...seen,
          versions: z.array(z.object({ version: z.string(), ...seen })),
        }),
      ),
    }),
  ),
});

export type UsageReport = z.infer<typeof UsageReportSchema>;
type CoordinateUsage = UsageReport['coordinates'][number];
type ClientUsage = CoordinateUsage['clients'][number];

const iso = (ms: number) => new Date(ms).toISOString();
const date = (day: number) => iso(day * 86_400_000).slice(0, 10);

interface Span {
  count: number;
  firstSeen: number;
  lastSeen: number;
}

const widen = (span: Span, total: UsageTotal) => {
  span.count += total.count;
  span.firstSeen = Math.min(span.firstSeen, total.firstSeen);
  span.lastSeen = Math.max(span.lastSeen, total.lastSeen);
};

const seenOf = (span: Span) => ({
  count: span.count,
  firstSeen: iso(span.firstSeen),
  lastSeen: iso(span.lastSeen),
});

/**
 * The report of the stored totals (sorted by coordinate, api, client name and version, as
 * `readUsageTotals` reads them), covering the days `fromDay` to `today`.
 */
export function usageReport(
  totals: readonly UsageTotal[],
  fromDay: number,
  today: number,
  now: number,
): UsageReport {
  const coordinates: CoordinateUsage[] = [];
  let coordinate: (Span & { key: string; clients: ClientUsage[] }) | undefined;
  let client: (Span & { name: string; versions: ClientUsage['versions'] }) | undefined;
  const closeClient = () => {
    if (client && coordinate)
      coordinate.clients.push({ name: client.name, ...seenOf(client), versions: client.versions });
    client = undefined;
  };
  const closeCoordinate = () => {
    closeClient();
    if (!coordinate) return;
    const [api, name] = coordinate.key.split('\n') as ['graphql' | 'rest', string];
    coordinates.push({ coordinate: name, api, ...seenOf(coordinate), clients: coordinate.clients });
    coordinate = undefined;
  };
  for (const total of totals) {
    const key = `${total.api}\n${total.coordinate}`;
    if (coordinate?.key !== key) {
      closeCoordinate();
      coordinate = { key, count: 0, firstSeen: Infinity, lastSeen: 0, clients: [] };
    }
    if (client?.name !== total.clientName) {
      closeClient();
      client = { name: total.clientName, count: 0, firstSeen: Infinity, lastSeen: 0, versions: [] };
    }
    widen(coordinate, total);
    widen(client, total);
    client.versions.push({ version: total.clientVersion, ...seenOf(total) });
  }
  closeCoordinate();
  return { generatedAt: iso(now), from: date(fromDay), to: date(today), coordinates };
}
