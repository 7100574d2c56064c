import type { Context } from 'hono';
import type { AppEnv } from '../http/env.js';
import { UNKNOWN_CLIENT } from '../observability/client-name.js';
import type { Route } from '../rest/kit/route.js';
import type { UsageRecorder } from './recorder.js';

/** What a route's count needs of the usage recorder. */
export type UsageCounter = Pick<UsageRecorder, 'enabled' | 'record'>;

/**
 * Counts every call to a REST operation by its operation id, per client name and version, whatever
 * its answer (a call refused for its token, its rate or its sunset is still a client calling it):
 * around the token check and the cache (src/rest/marks.ts), so that answers from the cache count
 * too. A tally in memory; none while usage is not counted.
 */
export function usageCount(
  spec: Route['spec'],
  recorder: UsageCounter,
): ((c: Context<AppEnv>) => void) | undefined {
  if (!recorder.enabled) return undefined;
  // One list per operation, made once: the recorder keys its tallies by it.
  const coordinates = [spec.operationId] as const;
  return (c) => recorder.record('rest', coordinates, c.get('clientName') ?? UNKNOWN_CLIENT);
}
