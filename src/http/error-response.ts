import type { Context } from 'hono';
import type { ContractError } from '../errors/catalogue.js';
import { graphqlErrorAnswer } from '../errors/graphql.js';
import { restErrorAnswer } from '../errors/rest.js';
import { recordFailure } from '../tracing/hooks.js';
import { noteErrorCode } from './access-log-fields.js';
import type { AppEnv } from './env.js';

/**
 * An error answered before either edge runs (token, rate limit, time limit, size). On /graphql it
 * has the GraphQL shape (`errors[].extensions.code/status`), elsewhere the contract's Error shape;
 * the headers of its code, then `extra`.
 */
export function errorResponse(
  c: Context<AppEnv>,
  error: ContractError,
  extra?: Readonly<Record<string, string>>,
): Response {
  recordFailure(error);
  noteErrorCode(c.get('accessLog'), error.code);
  const { status, headers, body } =
    c.req.path === '/graphql'
      ? graphqlErrorAnswer(error, c.req.header('accept') ?? '', extra)
      : restErrorAnswer(error, extra);
  return new Response(body, { status, headers });
}
