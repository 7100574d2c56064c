import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';

/**
 * The descriptors the process holds besides its clients' connections and PostgreSQL's pool: about
 * 30 at rest (the listening socket, stdio, libuv's own, SQLite's files, Redis, the change feed's
 * listener), with room for the files read while modules load.
 */
const OWN_FILES = 64;

/** The soft limit on this process's open files, read from Linux's /proc; undefined elsewhere. */
export function openFileLimit(limits = '/proc/self/limits'): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync(limits, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One line for the start when the open-file limit cannot hold what the caps allow; else none. The
 * need: one address at its connection cap, as many again for every other address together, the
 * database's connections and the process's own files.
 */
export function openFileWarning(
  config: Pick<Config, 'limits' | 'database'>,
  limit = openFileLimit(),
): string | undefined {
  const perAddress = config.limits.connectionsPerClient;
  const database = config.database.provider === 'postgresql' ? config.database.poolSize : 0;
  const needed = 2 * perAddress + database + OWN_FILES;
  if (limit === undefined || limit >= needed) return undefined;
  return (
    `the open-file limit (${limit}) is below the ${needed} files the connection cap needs ` +
    `(2 × MAX_CONNECTIONS_PER_CLIENT ${perAddress} + ${database} database connections + ` +
    `${OWN_FILES} for the process): raise it (ulimit -n, systemd LimitNOFILE=) or lower ` +
    'MAX_CONNECTIONS_PER_CLIENT'
  );
}
