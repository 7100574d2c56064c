import { randomUUID } from 'node:crypto';
import type { Change, ChangeFeed } from '../domain/changes.js';
import type { RedisConnection } from '../redis.js';
import { currentTraceparent } from '../tracing/hooks.js';
import { createMemoryChangeFeed } from './memory-feed.js';

interface Message {
  /** The replica that made the writes: it has told its own listeners already. */
  origin: string;
  changes: Change[];
  /** The write's trace context (`traceparent`), when the writer traces. */
  cause?: string;
}

const toJson = (message: Message) =>
  JSON.stringify(message, (_key, value) => (typeof value === 'bigint' ? String(value) : value));

/** Ids travel as strings (JSON has no 64-bit integers). */
function fromJson(text: string): Message {
  const message = JSON.parse(text) as Message;
  for (const change of message.changes) {
    const ids = change as unknown as Record<string, unknown>;
    for (const key of ['id', 'petId']) if (key in ids) ids[key] = BigInt(ids[key] as string);
  }
  return message;
}

/**
 * A change feed shared by the replicas through Redis pub/sub. A replica's own listeners hear its
 * writes at once (and `publish` waits for them, as in memory); the other replicas hear them
 * through Redis, as `remote` changes. While Redis is away, other replicas miss the changes made
 * meanwhile.
 */
export function createRedisChangeFeed(redis: RedisConnection): ChangeFeed {
  const local = createMemoryChangeFeed();
  const channel = `${redis.prefix}changes`;
  const origin = randomUUID();
  // On every (re)connection: ioredis' own resubscription forgets the channels when several
  // reconnection attempts fail in a row.
  const subscribe = () => redis.subscriber.subscribe(channel).catch(redis.failed);
  redis.subscriber.on('ready', subscribe);
  if (redis.subscriber.status === 'ready') subscribe();
  redis.subscriber.on('message', (from, text) => {
    if (from !== channel) return;
    const message = fromJson(text);
    if (message.origin !== origin) void local.deliver(message.changes, 'remote', message.cause);
  });
  return {
    async publish(changes) {
      const cause = currentTraceparent();
      await local.deliver(changes, 'local', cause);
      try {
        await redis.commands.publish(channel, toJson({ origin, changes: [...changes], cause }));
      } catch (error) {
        redis.failed(error);
      }
    },
    subscribe: local.subscribe,
  };
}
