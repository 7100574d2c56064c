import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from './logger.js';
import { logFailure } from './observability/log-throttle.js';

/**
 * The replicas' shared state, on one connection. Redis being away must never fail or stall a
 * request: commands fail at once while disconnected (no offline queue) or after `commandTimeout`,
 * and the callers fall back (see each user). Reconnection is automatic, for as long as the process
 * runs.
 */
export interface RedisConnection {
  /** Begins every key: one deployment's replicas share it, others never collide. */
  readonly prefix: string;
  readonly commands: Redis;
  /** 'up' while the connection is ready. */
  status(): 'up' | 'down';
  /** Called with every failure of a Redis command or connection (counted, logged throttled). */
  failed(error: unknown): void;
  close(): Promise<void>;
}

export interface RedisOptions {
  /** The database the replicas share: it names their keys (`petstore:<hash>:`). */
  databaseUrl: string;
  logger: Logger;
  /** Counts failures (a metric); the log is throttled to one line a second. */
  onFailure?: () => void;
}

/** A short, stable name for the deployment: a hash of its database URL without the password. */
function deploymentPrefix(databaseUrl: string): string {
  let name = databaseUrl;
  if (!databaseUrl.startsWith('file:')) {
    const url = new URL(databaseUrl);
    url.password = '';
    name = url.toString();
  }
  return `petstore:${createHash('sha256').update(name).digest('hex').slice(0, 12)}:`;
}

export function connectRedis(
  url: string,
  { databaseUrl, logger, onFailure }: RedisOptions,
): RedisConnection {
  const options = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 500,
    // Try again every so often, for ever: Redis coming back resumes sharing without a restart.
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
  };
  const commands = new Redis(url, options);
  const failed = (error: unknown) => {
    onFailure?.();
    logFailure(
      logger,
      { level: 'warn', message: 'Redis cannot be reached; going on without it', throttled: true },
      { err: error },
    );
  };
  // Without a listener a connection error would be an uncaught exception.
  commands.on('error', failed);
  return {
    prefix: deploymentPrefix(databaseUrl),
    commands,
    status: () => (commands.status === 'ready' ? 'up' : 'down'),
    failed,
    async close() {
      commands.disconnect();
    },
  };
}
