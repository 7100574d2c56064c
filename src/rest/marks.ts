import type { Config } from '../config.js';
import type { Link } from '../http/chain.js';
import type { AppEnv } from '../http/env.js';
import { type UsageCounter, usageCount } from '../usage/rest.js';
import { deprecationMark } from '../warnings/rest.js';
import type { Route } from './kit/route.js';

/**
 * What every call of a REST route gets around the token check, the rate limit and the cache, so
 * that their answers have it too: its usage count (src/usage/rest.ts, once the answer is ready:
 * the client is named after the token check) and a deprecated route's marks
 * (src/warnings/rest.ts). The first link of the route's chain (api.ts); none when it has neither.
 */
export function routeMark(
  spec: Route['spec'],
  { config, usage }: { config: Config; usage: UsageCounter },
): Link<AppEnv> | undefined {
  const count = usageCount(spec, usage);
  const mark = deprecationMark(spec, config);
  if (!count && !mark) return undefined;
  return (c, next) => {
    mark?.(c);
    return count ? next().finally(() => count(c)) : next();
  };
}
