import type { Plugin } from 'graphql-yoga';
import { isAsyncIterable } from 'graphql-yoga';
import type { IncrementalSite } from '../graphql/plan/index.js';
import type { Streamed } from './format.js';
import type { Payload2022 } from './merge.js';
import { inSpecV02 } from './spec-v02.js';

interface Conversion {
  sites: readonly IncrementalSite[];
  variables: Record<string, unknown>;
}

/** The requests whose streamed answer goes out in graphql-js 17's format, until it does. */
const conversions = new WeakMap<Request, Conversion>();

/**
 * Notes that a request's operation runs incrementally (the standard executor's 2022 format) for a
 * client that asked for `format`: what `incrementalDelivery` needs to write it in that format.
 */
export function streamsIn(
  request: Request | undefined,
  format: Streamed,
  sites: readonly IncrementalSite[],
  variables: Record<string, unknown>,
): void {
  if (request && format.spec === 'v0.2') conversions.set(request, { sites, variables });
}

/**
 * Writes a streamed query's parts in the format its client asked for, last among the hooks that
 * read them (demand control's report, the response cache's complete result read the 2022
 * parts). The 2022 parts go out as they are.
 */
export function incrementalDelivery(): Plugin {
  return {
    onResultProcess({ request, result, setResult }) {
      const conversion = conversions.get(request);
      if (!conversion || !isAsyncIterable(result)) return;
      conversions.delete(request);
      setResult(
        inSpecV02(
          result as AsyncIterable<Payload2022>,
          conversion.sites,
          conversion.variables,
        ) as never,
      );
    },
  };
}
