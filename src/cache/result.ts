import type { ExecutionResult } from 'graphql';

/**
 * A GraphQL result as the cache keeps it: the result itself, apart from its cost report, which
 * belongs to one caller at one moment (its budget) and is composed with the result on a hit. A
 * result, not an answer's bytes: an answer in another format can be made from it too.
 */
export interface CachedResult {
  /** The result's `data`, serialized. */
  data: string;
  /** The result's own extensions (`warnings`): every one but the cost report. */
  extensions?: Record<string, unknown>;
  /** The cost its operation requested, as the request that filled the cache reported it. */
  requestedQueryCost: number;
}

/** A request's results as the cache keeps them: one, or a batch's in order. */
export type CachedResults = CachedResult | readonly CachedResult[];

/** The report a kept result answers with: what the caller's request costs now. */
export type CostReportOf = (result: CachedResult) => object;

function cachedResult(result: ExecutionResult): CachedResult {
  // `http` is Yoga's, never sent.
  const { cost, http: _, ...extensions } = result.extensions ?? {};
  const requested = (cost as { requestedQueryCost?: unknown } | undefined)?.requestedQueryCost;
  return {
    data: JSON.stringify(result.data ?? null),
    ...(Object.keys(extensions).length > 0 ? { extensions } : {}),
    requestedQueryCost: typeof requested === 'number' ? requested : 0,
  };
}

/** `Array.isArray`, which narrows no readonly array. */
const isBatch = <T extends object>(results: T | readonly T[]): results is readonly T[] =>
  Array.isArray(results);

/** What the cache keeps of the results a request answered (with their cost reports attached). */
export const cachedResults = (
  answered: ExecutionResult | readonly ExecutionResult[],
): CachedResults => (isBatch(answered) ? answered.map(cachedResult) : cachedResult(answered));

/** One result's JSON, with `cost` as its cost report when given: as Yoga writes a result. */
function resultJson({ data, extensions }: CachedResult, cost: object | undefined): string {
  const all = cost ? { ...extensions, cost } : extensions;
  return all ? `{"data":${data},"extensions":${JSON.stringify(all)}}` : `{"data":${data}}`;
}

/**
 * The JSON answer of kept results: with each one's cost report from `reportOf` (a hit's answer), or
 * without any (what the answer's ETag covers, the same whoever asks and whenever).
 */
export function resultsJson(results: CachedResults, reportOf?: CostReportOf): string {
  const one = (result: CachedResult) => resultJson(result, reportOf?.(result));
  return isBatch(results) ? `[${results.map(one).join(',')}]` : one(results);
}
