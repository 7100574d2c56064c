import type { MiddlewareHandler } from 'hono';
import type { AppEnv, UsageNote } from '../http/env.js';
import { UNKNOWN_CLIENT } from '../observability/client-name.js';
import type { UsageRecorder } from './recorder.js';

/**
 * Counts the GraphQL answers the response cache gives, which run no operation: the GraphQL edge
 * notes what an answer's operations used (UsageNote), the cache keeps the note with the answer and
 * hands it back on a hit, and this counts it for the client of the request that got the hit.
 * Registered on /graphql before the response cache, only while both are on.
 */
export function countCachedAnswers(recorder: UsageRecorder): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const note: UsageNote = { coordinates: undefined, fromCache: undefined };
    c.set('usageNote', note);
    await next();
    if (note.fromCache)
      recorder.recordListed('graphql', note.fromCache, c.get('clientName') ?? UNKNOWN_CLIENT);
  };
}
