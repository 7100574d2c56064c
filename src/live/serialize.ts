import type { ExecutionResult, GraphQLError } from 'graphql';

export type Result = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

/** An error as the contract sends it: nothing of Yoga's own `http` or `unexpected` keys. */
function errorJson(error: GraphQLError) {
  const json = typeof error.toJSON === 'function' ? error.toJSON() : { ...error };
  if (!json.extensions) return json;
  const { http: _http, unexpected: _unexpected, ...extensions } = json.extensions;
  const { extensions: _all, ...rest } = json;
  return Object.keys(extensions).length > 0 ? { ...rest, extensions } : rest;
}

/** A subscription's result as the live transports send it (the SSE `data:`, graphql-ws `payload`). */
export function serialize(result: Result): string {
  if (!result.errors?.length && !result.extensions?.http)
    return (result.stringify ?? JSON.stringify)(result);
  const { http: _http, ...extensions } = result.extensions ?? {};
  return JSON.stringify({
    ...result,
    errors: result.errors?.map(errorJson),
    extensions: Object.keys(extensions).length > 0 ? extensions : undefined,
  });
}
