/**
 * `npm run schema:check -- [--base <git ref>] [--usage <file or URL>] [--days 30] …`: the gate
 * against breaking changes of the published interfaces (docs/operations.md).
 */
import { readFile } from 'node:fs/promises';
import { attempt, parseCommand, UsageError } from '../cli.js';
import type { UsageReport } from '../usage/report.js';
import type { SchemaChange } from './changes.js';
import { commitOf, defaultBase, fileAt, isRelativeToHead } from './git.js';
import { graphqlChanges } from './graphql-changes.js';
import { openApiChanges } from './openapi-changes.js';
import { daysCovered, loadUsage, usageWithin } from './usage-data.js';

const SDL = 'schema/schema.graphql';
const OPENAPI = 'schema/openapi.json';

const command = {
  name: 'npm run schema:check',
  synopsis:
    '[--base <git ref>] [--usage <file or URL>] [--days <n>] [--usage-max-mb <n>] [--usage-timeout <s>]',
  help: `Compares ${SDL} and ${OPENAPI} (as they are in the working tree) with those of a
base commit, prints every change as breaking, dangerous or safe, and fails (exit code 1) on a
breaking change, unless what it removes or changes was deprecated in the base and the usage data
shows no client used it in the last --days days.

  --base <git ref>      what to compare with (default: the last release tag v*, else origin/main,
                        else HEAD~1; a HEAD~n that this checkout does not have is not an error:
                        there is nothing to compare)
  --usage <file|URL>    a usage report, as GET /usage answers it: a file, or the URL of a running
                        gateway's /usage (the token in USAGE_TOKEN, with the admin:read scope)
  --days <n>            the window of the usage check, in days (default: 30); a report that
                        covers fewer days (a younger database) lets no removal through
  --usage-max-mb <n>    the largest usage report read, file or answer, in MB (default: 64)
  --usage-timeout <s>   the longest wait for the URL's whole answer, in seconds (default: 30)
  -h, --help            this text

Example: npm run schema:check -- --base origin/main --usage https://gateway.internal/usage`,
  options: {
    base: { type: 'string' as const },
    usage: { type: 'string' as const },
    days: { type: 'string' as const, default: '30' },
    'usage-max-mb': { type: 'string' as const, default: '64' },
    'usage-timeout': { type: 'string' as const, default: '30' },
  },
};

type Verdict = SchemaChange & { allowed?: string; blocked?: string };

function judge(
  change: SchemaChange,
  usage: UsageReport | undefined,
  days: number,
  now: number,
): Verdict {
  if (change.level !== 'breaking') return change;
  if (!change.deprecatedInBase || change.usageKeys.length === 0)
    return { ...change, blocked: 'it was not deprecated in the base' };
  const verdict = usageWithin(usage, change.api, change.usageKeys, days, now);
  return verdict.unused
    ? {
        ...change,
        allowed: `deprecated in the base, and no client used it in the last ${days} days`,
      }
    : { ...change, blocked: `deprecated in the base, but ${verdict.reason}` };
}

const columns = [10, 8, 29] as const;
const indent = ' '.repeat(columns.reduce((sum, width) => sum + width + 1, 0));

function print(verdict: Verdict): void {
  const [level, api, kind] = columns;
  const where = verdict.location ? `${verdict.location}: ` : '';
  console.log(
    `${verdict.level.padEnd(level)} ${verdict.api.padEnd(api)} ${verdict.kind.padEnd(kind)} ${where}${verdict.message}`,
  );
  if (verdict.allowed) console.log(`${indent}allowed: ${verdict.allowed}`);
  if (verdict.blocked) console.log(`${indent}blocks: ${verdict.blocked}`);
}

/** An option's whole number, 1 or more. */
function wholeNumber(option: string, value: string, unit: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(
      `--${option} must be a whole number of ${unit}, 1 or more, not "${value}"`,
    );
  return Number(value);
}

async function main(): Promise<number> {
  const { values } = parseCommand(command);
  const days = wholeNumber('days', values.days, 'days');
  const bounds = {
    maxBytes: wholeNumber('usage-max-mb', values['usage-max-mb'], 'MB') * 1024 * 1024,
    timeoutMs: wholeNumber('usage-timeout', values['usage-timeout'], 'seconds') * 1000,
  };
  const base = values.base ?? defaultBase();
  const commit = commitOf(base);
  if (!commit) {
    if (isRelativeToHead(base) && commitOf('HEAD')) {
      console.log(
        `schema:check: this checkout has no ${base} (a single commit?): nothing to compare with`,
      );
      return 0;
    }
    throw new UsageError(`no commit is named ${base} here`);
  }
  const usage = values.usage
    ? await loadUsage(values.usage, process.env.USAGE_TOKEN, bounds)
    : undefined;
  console.log(`schema:check: ${SDL} and ${OPENAPI} against ${base} (${commit})`);
  if (usage) {
    const covered = daysCovered(usage);
    console.log(
      `usage: ${values.usage}, made ${usage.generatedAt}, covering ${usage.from} to ${usage.to} (${covered} day(s))`,
    );
    // Days the report did not record show nothing unused: say so once, before the changes.
    if (covered < days)
      console.log(
        `usage: ${covered} day(s) covered, fewer than --days ${days}: it shows nothing unused, so no removal passes on its ground`,
      );
  }

  const changes: SchemaChange[] = [];
  const baseSdl = fileAt(commit, SDL);
  if (baseSdl === undefined) console.log(`${SDL} is new since ${base}: nothing to compare`);
  else changes.push(...(await graphqlChanges(baseSdl, await readFile(SDL, 'utf8'))));
  const baseOpenApi = fileAt(commit, OPENAPI);
  if (baseOpenApi === undefined) console.log(`${OPENAPI} is new since ${base}: nothing to compare`);
  else
    changes.push(
      ...openApiChanges(JSON.parse(baseOpenApi), JSON.parse(await readFile(OPENAPI, 'utf8'))),
    );

  const now = Date.now();
  const verdicts = changes.map((change) => judge(change, usage, days, now));
  const order = { breaking: 0, dangerous: 1, safe: 2 };
  verdicts.sort((a, b) => order[a.level] - order[b.level]);
  for (const verdict of verdicts) print(verdict);
  const count = (level: SchemaChange['level']) => verdicts.filter((v) => v.level === level).length;
  const blocking = verdicts.filter((verdict) => verdict.blocked).length;
  const allowed = verdicts.filter((verdict) => verdict.allowed).length;
  console.log(
    `${verdicts.length} change(s): ${count('breaking')} breaking (${allowed} allowed), ${count('dangerous')} dangerous, ${count('safe')} safe.`,
  );
  if (blocking > 0) {
    console.log(`schema:check failed: ${blocking} breaking change(s) would break clients.`);
    return 1;
  }
  console.log('schema:check passed: no change breaks a client.');
  return 0;
}

const code = await attempt(command, main);
process.exitCode = code;
