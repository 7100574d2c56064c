import { readFile } from 'node:fs/promises';
import { UsageError } from '../cli.js';
import { type UsageReport, UsageReportSchema } from '../usage/report.js';

const DAY_MS = 86_400_000;

/**
 * The usage report `--usage` names: a file, or a URL (`GET /usage` of a running gateway; the
 * bearer token in USAGE_TOKEN, which needs the admin:read scope).
 */
export async function loadUsage(source: string, token?: string): Promise<UsageReport> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(source, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    }).catch((error: unknown) => {
      throw new UsageError(`--usage ${source} could not be fetched: ${(error as Error).message}`);
    });
    if (!response.ok) {
      const hint =
        response.status === 401 || response.status === 403
          ? ' (set USAGE_TOKEN to a token with admin:read)'
          : '';
      throw new UsageError(`--usage ${source} answered ${response.status}${hint}`);
    }
    text = await response.text();
  } else {
    text = await readFile(source, 'utf8').catch(() => {
      throw new UsageError(`--usage ${source}: no such file`);
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`--usage ${source} is not JSON`);
  }
  const parsed = UsageReportSchema.safeParse(json);
  if (!parsed.success)
    throw new UsageError(`--usage ${source} is not a usage report (what GET /usage answers)`);
  return parsed.data;
}

/** What the usage data says about a change's keys within the window. */
export type UsageVerdict = { unused: true } | { unused: false; reason: string };

/**
 * Whether no client used any of `keys` in the `days` before `now`, as `report` shows it. The report
 * must cover the window: made within it, and counting from its first day (today is the last of
 * the `days`; a server keeps USAGE_RETENTION_DAYS days, today included).
 */
export function usageWithin(
  report: UsageReport | undefined,
  api: 'graphql' | 'rest',
  keys: readonly string[],
  days: number,
  now: number,
): UsageVerdict {
  if (!report) return { unused: false, reason: 'no usage data (--usage) shows it unused' };
  const start = now - days * DAY_MS;
  if (Date.parse(report.generatedAt) < start)
    return { unused: false, reason: `the usage report was made before the last ${days} days` };
  const firstDay = new Date(now - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  if (report.from > firstDay)
    return {
      unused: false,
      reason: `the usage report covers only the days since ${report.from}, not the last ${days}`,
    };
  const used = report.coordinates.filter(
    (entry) =>
      entry.api === api && keys.includes(entry.coordinate) && Date.parse(entry.lastSeen) >= start,
  );
  if (used.length === 0) return { unused: true };
  const clients = [
    ...new Set(
      used.flatMap((entry) =>
        entry.clients
          .filter((client) => Date.parse(client.lastSeen) >= start)
          .map((client) => `${client.name} (last ${client.lastSeen.slice(0, 10)})`),
      ),
    ),
  ];
  return { unused: false, reason: `used in the last ${days} days by ${clients.join(', ')}` };
}
