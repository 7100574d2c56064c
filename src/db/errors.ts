/** Thrown for any query after `Database.close()`. */
export class DatabaseClosedError extends Error {
  override name = 'DatabaseClosedError';
  constructor() {
    super('The database has been closed.');
  }
}

/**
 * A statement sent to a transaction that has ended: its work went on after Prisma rolled it back
 * at its time limit (or after its commit), so it is refused, as Prisma's P2028 refuses its own.
 */
export class TransactionEndedError extends Error {
  override name = 'TransactionEndedError';
  constructor() {
    super(
      'The transaction has ended (rolled back at its time limit, or committed): no more statements.',
    );
  }
}

/** Prisma's codes for a server that cannot be reached, timed out, or has no connection free. */
const unreachableCodes = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** Driver adapter error kinds with the same meaning. */
const unreachableKinds = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

/**
 * PostgreSQL SQLSTATEs of a server going away or not accepting connections yet: 57P01 (terminated
 * by an administrator, e.g. a restart or `pg_terminate_backend`), 57P02 (crash shutdown), 57P03
 * (starting up or shutting down), 57P05 (idle session timeout) and 53300 (too many connections).
 * The whole class 08 (connection exception) counts too.
 */
const unreachableSqlStates = new Set(['57P01', '57P02', '57P03', '57P05', '53300']);

/** Socket errors from Node: the connection was refused, reset or broken. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * node-postgres' own errors, which carry no code: a connection that died under a query or a
 * transaction ("Connection terminated unexpectedly", "Client has encountered a connection error
 * and is not queryable"), a connect timeout of the pool, a pool already ended (shutting down).
 * The adapter passes these through unchanged, so only their messages identify them.
 */
const driverMessages =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Cannot use a pool after calling end)/;

function isUnreachableCode(code: unknown): boolean {
  if (typeof code !== 'string') return false;
  return (
    unreachableCodes.has(code) ||
    unreachableSqlStates.has(code) ||
    /^08[0-9A-Z]{3}$/.test(code) ||
    socketCodes.has(code)
  );
}

interface ErrorLike {
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/**
 * True when a failure means the database cannot be reached (down, restarting, the connection cut,
 * out of connections, closed): the edges answer 503 UNAVAILABLE for it instead of 500 INTERNAL.
 *
 * Through Prisma 7 and @prisma/adapter-pg the same event arrives in several shapes: a Prisma error
 * with a Prisma code (P1001) or with `meta.driverAdapterError.cause` holding the adapter's `kind`
 * and PostgreSQL's `originalCode` (57P01 comes as P2010/P2039 with kind `postgres`); the adapter's
 * DriverAdapterError itself (from an interactive transaction), whose `cause` is that same object;
 * or node-postgres' plain Error (a transaction whose connection died). So the whole chain of
 * `cause` and `meta.driverAdapterError` is searched.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  const pending: unknown[] = [error];
  const seen = new Set<unknown>();
  while (pending.length > 0 && seen.size < 16) {
    const current = pending.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (current instanceof DatabaseClosedError) return true;
    const { code, kind, originalCode, message, cause, meta } = current as ErrorLike;
    if (isUnreachableCode(code) || isUnreachableCode(originalCode)) return true;
    if (typeof kind === 'string' && unreachableKinds.has(kind)) return true;
    if (typeof message === 'string' && driverMessages.test(message)) return true;
    pending.push(cause, meta?.driverAdapterError);
  }
  return false;
}

/**
 * A statement or transaction that ran past its time limit: PostgreSQL's `statement_timeout`
 * (SQLSTATE 57014) or a transaction that waited or ran past its limit (Prisma's P2028, or a
 * statement refused by a transaction that has ended: TransactionEndedError).
 */
export function isDatabaseTimeout(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; typeof current === 'object' && current !== null && depth < 4; depth++) {
    if (current instanceof TransactionEndedError) return true;
    const { code, originalCode, meta, cause } = current as ErrorLike;
    if (code === 'P2028' || code === '57014' || originalCode === '57014') return true;
    current = meta?.driverAdapterError ?? cause;
  }
  return false;
}

/** The constraints a write may violate that a store answers as an outcome, by Prisma's code. */
const constraintCodes = { unique: 'P2002', 'foreign key': 'P2003' } as const;

/**
 * What `write` answers, or `outcome` when the database refuses it for violating a `constraint`
 * (on either database, through Prisma's client or its driver adapter): a store reports, say, a
 * name already taken as what happened, and the rules never see a database code. In a transaction
 * on PostgreSQL the refused statement has aborted it: the rules answer such an outcome by failing.
 */
export async function unlessViolates<T, const O>(
  write: PromiseLike<T>,
  constraint: keyof typeof constraintCodes,
  outcome: O,
): Promise<T | O> {
  try {
    return await write;
  } catch (error) {
    if ((error as ErrorLike | null | undefined)?.code === constraintCodes[constraint])
      return outcome;
    throw error;
  }
}
