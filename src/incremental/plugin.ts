import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isAsyncIterable } from 'graphql-yoga';
import { timeoutError } from '../errors/classify.js';
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
 * The parts until the request's deadline: a part still to come then is not waited for, and a
 * last part says TIMEOUT instead (the time limit holds for a streamed query as for one answer,
 * whose limit ends when it is ready). The executor's iterator is returned, so it stops.
 */
async function* untilDeadline(
  parts: AsyncIterable<Payload2022>,
  at: number,
  mask: (error: GraphQLError) => Error,
): AsyncGenerator<Payload2022> {
  const iterator = parts[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      const expired = new Promise<'expired'>((resolve) => {
        timer = setTimeout(() => resolve('expired'), Math.max(0, at - performance.now()));
      });
      const next = await Promise.race([iterator.next(), expired]);
      clearTimeout(timer);
      if (next === 'expired') {
        const error = mask(
          new GraphQLError(timeoutError().message, { originalError: timeoutError() }),
        );
        yield { errors: [error as GraphQLError], hasNext: false };
        return;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

/**
 * Writes a streamed query's parts in the format its client asked for, last among the hooks that
 * read them (demand control's report, the response cache's complete result read the 2022
 * parts), their errors masked by `mask` (the edge's masker).
 */
export function incrementalDelivery(mask: (error: GraphQLError) => Error): Plugin {
  return {
    onResultProcess({ request, result, setResult, serverContext }) {
      const conversion = conversions.get(request);
      if (!conversion || !isAsyncIterable(result)) return;
      conversions.delete(request);
      const deadline = (serverContext as { deadline?: { at: number } }).deadline;
      const streamed = result as AsyncIterable<Payload2022>;
      const parts = masked(deadline ? untilDeadline(streamed, deadline.at, mask) : streamed, mask);
      setResult(
        (conversion.format.spec === 'v0.2'
          ? inSpecV02(parts, conversion.sites, conversion.variables)
          : parts) as never,
      );
    },
  };
}
