/** Thrown for any query after `Database.close()`. */
export class DatabaseClosedError extends Error {
  override name = 'DatabaseClosedError';
  constructor() {
    super('The database has been closed.');
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
 * True when a failure means the database cannot be reached (down, closed, out of connections):
 * the edges answer 503 UNAVAILABLE for it instead of 500 INTERNAL.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof DatabaseClosedError) return true;
    const { code, meta, cause } = current as {
      code?: unknown;
      meta?: { driverAdapterError?: { cause?: { kind?: string } } };
      cause?: unknown;
    };
    if (typeof code === 'string' && unreachableCodes.has(code)) return true;
    const kind = meta?.driverAdapterError?.cause?.kind;
    if (kind && unreachableKinds.has(kind)) return true;
    current = cause;
  }
  return false;
}

export const unavailableMessage = 'The database cannot be reached; try again later.';
