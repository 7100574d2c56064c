import { type ExecutionResult, GraphQLError, Source } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { DomainContext } from '../domain/context.js';
import { type ErrorBounds, type ErrorCode, errorStatus } from '../errors/catalogue.js';
import { errorCodeOf } from '../errors/classify.js';
import { refuse } from '../errors/graphql.js';
import type { GraphQLContext } from '../graphql/kit/context.js';
import type { Loaders } from '../graphql/kit/loaders.js';
import { planOf } from '../graphql/plan/index.js';
import { boundResults } from '../limits/bounded-errors.js';
import { jsonText } from './json-text.js';
import {
  fingerprint,
  IDEMPOTENCY_KEY,
  IDEMPOTENT_REPLAYED,
  type Idempotency,
  isRecorded,
  type KeyedScope,
  KeyInFlight,
  keyOwner,
  parseKey,
  type RecordedResponse,
  ResponseTooLarge,
} from './keys.js';

/** The errors of a result as the edge sends them (masked), for the record. */
type Masker = (error: unknown) => Error;

/** How the edge answers a result: its errors masked, then bounded. */
interface Answering {
  mask: Masker;
  bounds: ErrorBounds;
}

/**
 * Loaders that read in a keyed mutation's transaction (`db`) and keep nothing between reads: the
 * edge's (src/graphql/loaders.ts), which read through the resources' rules.
 */
type TransactionLoaders = (domain: DomainContext, db: KeyedScope['db']) => Loaders;

/**
 * The status a result counts as for its record: the largest of its errors' (200 without), so that
 * a mutation refused for authorisation or failed with a 5xx is not kept.
 */
function statusOf(result: ExecutionResult): number {
  const statuses = (result.errors ?? []).map(
    (error) => errorStatus[errorCodeOf(error) as ErrorCode] ?? 500,
  );
  return Math.max(200, ...statuses);
}

/**
 * A result as it is recorded: its data and errors as they are answered, masked and bounded by the
 * function that bounds the answer (`boundResults`), so that the record is no larger than what was
 * sent (the `extensions` the pipeline adds after execution, such as the cost, are added again to a
 * replay).
 */
function recordOf(result: ExecutionResult, { mask, bounds }: Answering): RecordedResponse {
  const status = statusOf(result);
  if (!result.errors) return { status, headers: {}, body: JSON.stringify({ data: result.data }) };
  const masked = result.errors.map((error) => mask(error) as GraphQLError);
  // No `data` at all where execution did not start (variables that do not fit), as answered.
  const data = 'data' in result ? { data: result.data ?? null } : {};
  const [answered] = boundResults([{ errors: masked, ...data }], bounds);
  return { status, headers: {}, body: JSON.stringify({ errors: answered?.errors, ...data }) };
}

/** The offset in `text` of a line and column (both from 1), as GraphQL's locations count them. */
function offsetOf(text: string, { line, column }: { line: number; column: number }): number {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) break;
    offset = next + 1;
  }
  return offset + column - 1;
}

/**
 * A recorded result, as execution would have given it: errors again GraphQL errors, located in
 * `document` (the same text as the first time: the request is the same).
 */
function resultOf(recorded: RecordedResponse, document: string): ExecutionResult {
  const body = JSON.parse(recorded.body) as {
    data?: Record<string, unknown> | null;
    errors?: {
      message: string;
      path?: (string | number)[];
      locations?: { line: number; column: number }[];
      extensions?: Record<string, unknown>;
    }[];
  };
  const source = new Source(document);
  const errors = body.errors?.map(
    (error) =>
      new GraphQLError(error.message, {
        path: error.path,
        extensions: error.extensions,
        ...(error.locations
          ? { source, positions: error.locations.map((at) => offsetOf(document, at)) }
          : {}),
      }),
  );
  // In the order graphql-js writes a result.
  if (!errors) return { data: body.data };
  return 'data' in body ? { errors, data: body.data } : { errors };
}

/** The mutation field itself failed: nothing of it was written, nothing of it must be kept. */
const fieldFailed = (result: ExecutionResult) =>
  (result.errors ?? []).some((error) => (error.path?.length ?? 0) <= 1);

/** Thrown through the transaction so that it rolls back, carrying the result to answer. */
class FailedMutation extends Error {
  constructor(readonly result: ExecutionResult) {
    super('the mutation failed');
  }
}

type Context = GraphQLContext & {
  request?: Request;
  params?: { query?: unknown; operationName?: unknown; variables?: unknown };
};

/** `run`'s answer, or what it throws as a 400 request error. */
function asRefusal<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw refuse('VALIDATION_FAILED', (error as Error).message);
  }
}

/**
 * `Idempotency-Key` on `POST /graphql`, for a document that runs exactly one mutation field: the
 * mutation runs whole in one transaction (its reads and writes, the loaders included:
 * `KeyedRequest.commit`), and the result is recorded in that transaction; a retry of the same
 * request (document, operation name, variables) gets the recorded result again, with
 * `Idempotent-Replayed: true`, and runs nothing.
 * A key on a batch or on a document with several mutation fields is 400; on a query, ignored.
 * Keys belong to the token's subject (without one, 400), and a replay is refused (403) to a token
 * that lacks a scope the document needs (the mutation's or a selected field's).
 */
export function idempotentMutations(
  keys: Idempotency,
  answering: Answering,
  loadersIn: TransactionLoaders,
): Plugin<Context> {
  const replayed = new WeakSet<Request>();
  const keyOf = (request: Request | undefined) =>
    request?.method === 'POST' ? (request.headers.get(IDEMPOTENCY_KEY) ?? undefined) : undefined;
  return {
    onRequestParse({ request }) {
      if (keyOf(request) === undefined) return;
      return {
        onRequestParseDone({ requestParserResult }) {
          if (Array.isArray(requestParserResult))
            throw refuse(
              'VALIDATION_FAILED',
              `${IDEMPOTENCY_KEY} cannot be sent with a batch: send each mutation alone, with its own key`,
            );
        },
      };
    },
    // Synchronous for a request without a key: it pays for nothing of this.
    onExecute(payload) {
      const header = keyOf(payload.args.contextValue.request);
      if (header === undefined) return;
      return keyed(payload, header);
    },
    onResponse({ request, response }) {
      if (replayed.has(request)) response.headers.set(IDEMPOTENT_REPLAYED, 'true');
    },
  };

  async function keyed(
    {
      args,
      executeFn,
      setExecuteFn,
      setResultAndStopExecution,
    }: Parameters<NonNullable<Plugin<Context>['onExecute']>>[0],
    header: string,
  ) {
    const context = args.contextValue;
    const plan = planOf(args.schema, args.document, args.operationName);
    if (plan?.type !== 'mutation') return;
    if (plan.topFields !== 1)
      throw refuse(
        'VALIDATION_FAILED',
        `${IDEMPOTENCY_KEY} needs a document with exactly one mutation field: send each mutation alone, with its own key`,
      );
    const viewer = context.domain.viewer;
    const [key, owner] = asRefusal(() => [parseKey(header), keyOwner(viewer)] as const);
    const params = context.params ?? {};
    const print = fingerprint(
      'POST /graphql',
      String(params.query ?? ''),
      String(params.operationName ?? ''),
      jsonText(args.variableValues ?? {}),
    );
    let begun: Awaited<ReturnType<Idempotency['begin']>>;
    try {
      begun = await keys.begin(owner, key, print);
    } catch (error) {
      if (error instanceof KeyInFlight) {
        throw refuse(error.code, error.message, error.headers);
      }
      if (error instanceof Error && 'code' in error && error.code === 'IDEMPOTENCY_KEY_REUSED')
        throw refuse('IDEMPOTENCY_KEY_REUSED', error.message);
      throw error;
    }
    if (begun.kind === 'replay') {
      // Nothing the same request sent fresh would not give this caller: every scope it needs.
      const missing = [...plan.scopes].filter((scope) => !viewer.scopes.has(scope));
      if (missing.length > 0)
        throw refuse(
          'FORBIDDEN',
          `The response recorded for this ${IDEMPOTENCY_KEY} holds what needs the ${missing.join(' and ')} scope, which this token does not grant`,
        );
      if (context.request) replayed.add(context.request);
      setResultAndStopExecution(resultOf(begun.response, String(params.query ?? '')));
      return;
    }
    const { request } = begun;
    setExecuteFn(async (execution) => {
      const graphqlContext = execution.contextValue as Context;
      try {
        return await request.commit(async (scope) => {
          const domain = { ...graphqlContext.domain, ...scope };
          Object.assign(graphqlContext, {
            domain,
            loaders: loadersIn(domain, scope.db),
          });
          const result = (await executeFn(execution)) as ExecutionResult;
          if (fieldFailed(result)) throw new FailedMutation(result);
          return { value: result, response: recordOf(result, answering) };
        });
      } catch (error) {
        if (error instanceof ResponseTooLarge) {
          // Rolled back: the refusal is what the key records (a retry gets it again).
          const refused = { errors: [refuse(error.code, error.message)] };
          await request.fail(recordOf(refused, answering));
          return refused;
        }
        if (!(error instanceof FailedMutation)) {
          await request.fail(undefined);
          throw error;
        }
        const recorded = isRecorded(statusOf(error.result));
        await request.fail(recorded ? recordOf(error.result, answering) : undefined);
        return error.result;
      }
    });
  }
}
