import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isAsyncIterable } from 'graphql-yoga';
import type { IncrementalSite } from '../graphql/plan/index.js';
import type { Streamed } from './format.js';
import type { Payload2022 } from './merge.js';
import { inSpecV02 } from './spec-v02.js';

interface Conversion {
  format: Streamed;
  sites: readonly IncrementalSite[];
  variables: Record<string, unknown>;
}

/** The requests whose answer goes out in parts, until it does. */
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
  if (request) conversions.set(request, { format, sites, variables });
}

/**
 * The parts with the errors of their deferred fragments and streamed items masked as the edge
 * masks a result's own (which Yoga's masking and the failure log see; these they do not).
 */
async function* masked(
  parts: AsyncIterable<Payload2022>,
  mask: (error: GraphQLError) => Error,
): AsyncGenerator<Payload2022> {
  for await (const part of parts) {
    if (!part.incremental?.some((entry) => entry.errors?.length)) {
      yield part;
      continue;
    }
    yield {
      ...part,
      incremental: part.incremental.map((entry) =>
        entry.errors
          ? { ...entry, errors: entry.errors.map((e) => mask(e) as GraphQLError) }
          : entry,
      ),
    };
  }
}

/**
 * Writes a streamed query's parts in the format its client asked for, last among the hooks that
 * read them (demand control's report, the response cache's complete result read the 2022
 * parts), their errors masked by `mask` (the edge's masker).
 */
export function incrementalDelivery(mask: (error: GraphQLError) => Error): Plugin {
  return {
    onResultProcess({ request, result, setResult }) {
      const conversion = conversions.get(request);
      if (!conversion || !isAsyncIterable(result)) return;
      conversions.delete(request);
      const parts = masked(result as AsyncIterable<Payload2022>, mask);
      setResult(
        (conversion.format.spec === 'v0.2'
          ? inSpecV02(parts, conversion.sites, conversion.variables)
          : parts) as never,
      );
    },
  };
}
