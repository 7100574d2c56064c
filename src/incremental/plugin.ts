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

/**
 * The operations whose answer goes out in parts, until it does: by their HTTP request, or by their
 * context when they have none (sent over a WebSocket).
 */
const conversions = new WeakMap<object, Conversion>();

/**
 * Notes that an operation runs incrementally (the standard executor's 2022 format) for a client
 * that asked for `format`: what `inFormat` needs to write it in that format. `key`: its HTTP
 * request, else its context.
 */
export function streamsIn(
  key: object,
  format: Streamed,
  sites: readonly IncrementalSite[],
  variables: Record<string, unknown>,
): void {
  conversions.set(key, { format, sites, variables });
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
 * A streamed query's parts in the format its client asked for (the operation noted by `streamsIn`
 * under `key`), their errors masked by `mask` (the edge's masker), ended at `deadline`; any other
 * result as it is. What the HTTP answer writes (`incrementalDelivery`) and a WebSocket sends.
 */
export function inFormat<Result>(
  key: object,
  result: Result,
  deadline: { at: number } | undefined,
  mask: (error: GraphQLError) => Error,
): Result {
  const conversion = conversions.get(key);
  if (!conversion || !isAsyncIterable(result)) return result;
  conversions.delete(key);
  const streamed = result as AsyncIterable<Payload2022>;
  const parts = masked(deadline ? untilDeadline(streamed, deadline.at, mask) : streamed, mask);
  return (
    conversion.format.spec === 'v0.2'
      ? inSpecV02(parts, conversion.sites, conversion.variables)
      : parts
  ) as Result;
}

/**
 * Writes a streamed query's parts in the format its client asked for (`inFormat`), last among the
 * hooks that read them (demand control's report, the response cache's complete result read the
 * 2022 parts).
 */
export function incrementalDelivery(mask: (error: GraphQLError) => Error): Plugin {
  return {
    onResultProcess({ request, result, setResult, serverContext }) {
      if (!conversions.has(request)) return;
      const deadline = (serverContext as { deadline?: { at: number } }).deadline;
      setResult(inFormat(request, result, deadline, mask));
    },
  };
}
