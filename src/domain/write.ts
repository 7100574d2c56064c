import type { Writer } from '../db/change-events.js';
import type { RunStatement } from '../db/raw-sql.js';
import { inTransaction, rawSqlIn, type Tx } from '../db/transaction.js';
import { currentTraceparent } from '../tracing/hooks.js';
import type { Change } from './changes.js';
import type { DomainContext } from './context.js';

/**
 * Runs a write in one transaction together with the events of what it changed (`changesOf` its
 * result: none for a write that changed nothing), so that no crash can separate the two; once it
 * has committed, publishes them. A write that fails or is rolled back reports nothing.
 */
export function writeReporting<T>(
  ctx: DomainContext,
  work: (tx: Tx) => Promise<T>,
  changesOf: (result: T) => readonly Change[],
): Promise<T> {
  return reporting(ctx, changesOf, (recorded) =>
    inTransaction(ctx.db, async (tx) => recorded(await work(tx), rawSqlIn(tx).query)),
  );
}

/** `writeReporting` for a write in raw SQL alone: `work` runs its statements in the transaction. */
export function writeReportingSql<T>(
  ctx: DomainContext,
  work: (query: RunStatement) => Promise<T>,
  changesOf: (result: T) => readonly Change[],
): Promise<T> {
  return writeReporting(ctx, (tx) => work(rawSqlIn(tx).query), changesOf);
}

/**
 * Runs `write`, whose transaction records the events of its result (`recorded`, through the
 * transaction's `query`), then publishes them once it has committed.
 */
async function reporting<T>(
  ctx: DomainContext,
  changesOf: (result: T) => readonly Change[],
  write: (recorded: (result: T, query: RunStatement) => Promise<T>) => Promise<T>,
): Promise<T> {
  let changes: readonly Change[] = [];
  // The write's own span (its domain operation), not one of the transaction's statements.
  const cause = currentTraceparent();
  const result = await write(async (result, query) => {
    changes = changesOf(result);
    if (changes.length > 0) await ctx.changes.record(query, changes, cause);
    return result;
  });
  if (changes.length > 0) await ctx.changes.publish(changes);
  return result;
}

/**
 * Runs a write whose one statement also appends the events of what it changed
 * (`appendingEvents`, src/db/change-events.ts): with no transaction around it, a statement commits
 * whole or not at all. `work` answers its result and its last event's id (undefined when it
 * appended none); `changesOf` its result must name the events it appended, in their order. Once
 * the statement has committed, publishes them as `writeReporting` does. Inside a transaction
 * (a keyed request's: src/idempotency/) the statement is part of it, and publishing waits for it.
 */
export async function writeAppendingEvents<T>(
  ctx: DomainContext,
  work: (writer: Writer) => Promise<{ result: T; lastEvent: bigint | undefined }>,
  changesOf: (result: T) => readonly Change[],
): Promise<T> {
  const writer = ctx.changes.writer(currentTraceparent());
  const { result, lastEvent } = await work(writer);
  const changes = changesOf(result);
  if (changes.length === 0) return result;
  if (lastEvent !== undefined) ctx.changes.appended(changes, writer, lastEvent);
  await ctx.changes.publish(changes);
  return result;
}
