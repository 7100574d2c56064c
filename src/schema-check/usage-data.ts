import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { UsageError } from '../cli.js';
import { type UsageReport, UsageReportSchema } from '../usage/report.js';

const DAY_MS = 86_400_000;
const MB = 1024 * 1024;

/** How much of a usage report `loadUsage` reads, and how long it waits for a URL's. */
export interface UsageBounds {
  /** The largest report read, in bytes (file or body): past it, the command stops. */
  maxBytes: number;
  /** The longest wait for a URL's whole answer (connection, headers and body), in ms. */
  timeoutMs: number;
}

/** The text of `chunks`, read until the end or refused past `maxBytes` (the rest is never read). */
async function textOf(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes: number,
  tooLarge: () => UsageError,
): Promise<string> {
  const read: Uint8Array[] = [];
  let bytes = 0;
  // Leaving the loop early cancels the stream (a file is closed, a connection ended).
  for await (const chunk of chunks) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw tooLarge();
    read.push(chunk);
  }
  return Buffer.concat(read).toString('utf8');
}

const megabytes = (bytes: number) => `${Math.round(bytes / MB)} MB`;

async function fetchText(url: string, token: string | undefined, bounds: UsageBounds) {
  const seconds = `${bounds.timeoutMs / 1000} s`;
  const tooLarge = () =>
    new UsageError(
      `--usage ${url} answered more than ${megabytes(bounds.maxBytes)} (--usage-max-mb): not a usage report, or raise the bound`,
    );
  const explain = (error: unknown) =>
    (error as Error).name === 'TimeoutError'
      ? new UsageError(`--usage ${url} did not answer in full within ${seconds} (--usage-timeout)`)
      : error instanceof UsageError
        ? error
        : new UsageError(`--usage ${url} could not be fetched: ${(error as Error).message}`);
  try {
    const response = await fetch(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      // One deadline for the connection, the headers and the whole body.
      signal: AbortSignal.timeout(bounds.timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      const hint =
        response.status === 401 || response.status === 403
          ? ' (set USAGE_TOKEN to a token with admin:read)'
          : '';
      throw new UsageError(`--usage ${url} answered ${response.status}${hint}`);
    }
    if (Number(response.headers.get('content-length')) > bounds.maxBytes) {
      await response.body?.cancel();
      throw tooLarge();
    }
    if (!response.body) return '';
    return await textOf(response.body, bounds.maxBytes, tooLarge);
  } catch (error) {
    throw explain(error);
  }
}

async function readText(file: string, bounds: UsageBounds) {
  const stats = await stat(file).catch(() => {
    throw new UsageError(`--usage ${file}: no such file`);
  });
  if (!stats.isFile()) throw new UsageError(`--usage ${file} is not a regular file`);
  const tooLarge = () =>
    new UsageError(
      `--usage ${file} is larger than ${megabytes(bounds.maxBytes)} (--usage-max-mb): not a usage report, or raise the bound`,
    );
  if (stats.size > bounds.maxBytes) throw tooLarge();
  // Read within the bound all the same: the file may grow while it is read.
  return textOf(createReadStream(file), bounds.maxBytes, tooLarge).catch((error: unknown) => {
    throw error instanceof UsageError
      ? error
      : new UsageError(`--usage ${file} could not be read: ${(error as Error).message}`);
  });
}

/**
 * The usage report `--usage` names: a file, or a URL (`GET /usage` of a running gateway; the
 * bearer token in USAGE_TOKEN, which needs the admin:read scope), read within `bounds`.
 */
export async function loadUsage(
  source: string,
  token: string | undefined,
  bounds: UsageBounds,
): Promise<UsageReport> {
  const text = /^https?:\/\//.test(source)
    ? await fetchText(source, token, bounds)
    : await readText(source, bounds);
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

/** The whole days a report covers, from its first to its last (both counted). */
export const daysCovered = (report: UsageReport) =>
  Math.round((Date.parse(report.to) - Date.parse(report.from)) / DAY_MS) + 1;
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
      reason: `the usage report covers only ${daysCovered(report)} day(s), since ${report.from}, not the last ${days}`,
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
