import type { Db } from '../db/client.js';
import type { DomainContext } from './context.js';

export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/**
 * Runs `work` in one database transaction. Waits for a connection and runs for up to 10 s (the
 * request time limit) instead of Prisma's 2 s / 5 s defaults, so a burst of orders on one pet queues
 * instead of failing.
 */
export function inTransaction<T>(ctx: DomainContext, work: (tx: Tx) => Promise<T>): Promise<T> {
  return ctx.db.$transaction(work, { maxWait: 10_000, timeout: 10_000 });
}
