import type { DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { retryAfter } from '../errors/catalogue.js';
import { refuse } from '../errors/graphql.js';
import { resolvedCost } from '../graphql/plan/index.js';
import type { CostAccount, CostBudgetStatus } from '../http/env.js';
import { collecting, type Payload2022 } from '../incremental/merge.js';
import type { CostContext } from './rule.js';

/** What every GraphQL response says of its cost, in Shopify's shape (docs/demand-control.md). */
export interface CostReport {
  /** The estimate checked (and charged) before execution: 0 when nothing could be priced. */
  requestedQueryCost: number;
  /** What execution resolved, with the same weights; absent when nothing executed. */
  actualQueryCost?: number;
  /** The caller's cost budget after this operation; absent while the budget is off. */
  throttleStatus?: CostBudgetStatus;
}

/** What the demand control keeps on the context of an operation. */
interface DemandContext extends CostContext {
  params?: { operationName?: string | null | undefined };
  /** The caller's budget (on /graphql while RATE_LIMIT_COST_PER_MINUTE > 0). */
  costAccount?: CostAccount | undefined;
  /**
   * `websocket`: only what executed reports (a query); a refusal there is an `error` message, which
   * has no `extensions`, and a subscription's results carry no report, as before.
   */
  transport?: string;
  /** Points a batch paid for up front that its operations have not used yet. */
  prepaid?: { left: number };
  /** Set once the operation ran: the points it was charged, and what it resolved. */
  executed?: { charged: number; document: DocumentNode };
}

function rateLimited(points: number, status: CostBudgetStatus, retryAfterSeconds: number) {
  const message =
    points > status.maximumAvailable
      ? `This request costs ${points} points, more than the whole budget of ${status.maximumAvailable} a minute; ask for smaller pages or fewer nested lists`
      : `This request costs ${points} points and the budget holds ${status.currentlyAvailable} now ` +
        `(it refills at ${status.restoreRate} a second); try again in ${retryAfterSeconds} s`;
  return refuse('RATE_LIMITED', message, retryAfter(retryAfterSeconds));
}

function withReport<Result extends ExecutionResult>(result: Result, report: CostReport): Result {
  return { ...result, extensions: { ...result.extensions, cost: report } };
}

/**
 * Demand control: the cost budget (src/rate-limit/cost-budget.ts) and `extensions.cost`.
 * - An operation is charged its estimate (the cost rule left it on the context in validation)
 *   right before it executes; one the budget cannot cover does not run: 429 RATE_LIMITED with
 *   Retry-After. A batch is charged the sum of its operations at once, before any runs.
 * - After execution it is refunded the difference between the estimate and what it resolved.
 * - Every response of a query or a mutation, refused or not, reports its cost in
 *   `extensions.cost` (`CostReport`); a query over a WebSocket too, in its first `next` message
 *   (a refusal there is an `error` message, which has no `extensions`). A subscription is charged
 *   its estimate when it starts, over either transport (MAX_SUBSCRIPTIONS_PER_CLIENT bounds how
 *   many are open); its events carry no report.
 */
export function demandControl(schema: GraphQLSchema): Plugin<DemandContext> {
  /** What an operation that ran resolved, with the weights its estimate used. */
  const actualOf = (
    ran: NonNullable<DemandContext['executed']>,
    params: DemandContext['params'],
    result: ExecutionResult,
  ) =>
    resolvedCost({
      schema,
      document: ran.document,
      operationName: params?.operationName,
      data: result.data,
    });

  /**
   * The report of one result, refunding first what an operation that ran did not spend. Without a
   * budget nothing waits: the report is made in the same turn.
   */
  const report = (
    account: CostAccount | undefined,
    requested: number,
    result: ExecutionResult,
    actual: number | undefined,
    charged: number,
  ): ExecutionResult | Promise<ExecutionResult> => {
    const withStatus = (status: CostBudgetStatus | undefined) =>
      withReport(result, {
        requestedQueryCost: requested,
        ...(actual === undefined ? {} : { actualQueryCost: actual }),
        ...(status ? { throttleStatus: status } : {}),
      });
    if (!account) return withStatus(undefined);
    const unspent = actual === undefined ? 0 : charged - actual;
    return (unspent > 0 ? account.refund(unspent) : account.status()).then(withStatus);
  };

  /**
   * A query's parts with its report: the first carries the estimate and the budget, as a single
   * answer's report would; the last what execution resolved in all of them, once refunded.
   */
  const reportedParts = (
    context: DemandContext,
    executed: NonNullable<DemandContext['executed']>,
    parts: AsyncIterable<Payload2022>,
  ) => {
    const requested = context.cost?.requested ?? 0;
    const account = context.costAccount;
    return collecting(
      parts,
      (complete, last) => {
        if (complete.data === undefined) return undefined;
        const actual = actualOf(executed, context.params, complete.result());
        return report(account, requested, last as ExecutionResult, actual, executed.charged) as
          | Payload2022
          | Promise<Payload2022>;
      },
      async (first) => {
        const status = await account?.status();
        return withReport(first, {
          requestedQueryCost: requested,
          ...(status ? { throttleStatus: status } : {}),
        });
      },
    );
  };

  /** Charges what a batch has not prepaid; undefined when it was covered. */
  const charge = async (
    context: DemandContext,
    account: CostAccount,
    requested: number,
    stop: (error: GraphQLError) => void,
  ) => {
    // The operations of a batch take from what the batch paid, and pay only what is missing.
    const fromBatch = Math.min(requested, context.prepaid?.left ?? 0);
    if (context.prepaid) context.prepaid.left -= fromBatch;
    const missing = requested - fromBatch;
    if (missing > 0) {
      const charged = await account.charge(missing);
      if (!charged.allowed) {
        stop(rateLimited(requested, charged.status, charged.retryAfterSeconds));
        if (fromBatch > 0) await account.refund(fromBatch);
        return fromBatch;
      }
    }
    return undefined;
  };

  return {
    // After the batch rules: a batch is charged the sum of its operations before any runs.
    onRequestParse: ({ serverContext }) => {
      const context = serverContext as DemandContext;
      const account = context.costAccount;
      if (!account) return;
      return {
        async onRequestParseDone() {
          const { batchCost } = context;
          if (batchCost === undefined) return;
          const charged = await account.charge(batchCost);
          if (!charged.allowed)
            throw rateLimited(batchCost, charged.status, charged.retryAfterSeconds);
          context.prepaid = { left: batchCost };
        },
      };
    },

    // A subscription is charged its estimate once, when it starts, over either transport; its
    // events carry no report.
    onSubscribe({ args, setResultAndStopExecution }) {
      const { costAccount: account, cost } = args.contextValue;
      const requested = cost?.requested ?? 0;
      if (!account || requested <= 0) return;
      return account.charge(requested).then((charged) => {
        if (!charged.allowed)
          setResultAndStopExecution({
            errors: [rateLimited(requested, charged.status, charged.retryAfterSeconds)],
          });
      });
    },

    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue;
      const requested = context.cost?.requested ?? 0;
      const account = context.costAccount;
      const { document } = args;
      if (!account || requested <= 0) {
        context.executed = { charged: requested, document };
        return;
      }
      const stop = (error: GraphQLError) => setResultAndStopExecution({ errors: [error] });
      return charge(context, account, requested, stop).then((refused) => {
        if (refused === undefined) context.executed = { charged: requested, document };
      });
    },

    onExecutionResult({ result, setResult, context: yogaContext }) {
      const context = yogaContext as DemandContext;
      if (Array.isArray(result)) return;
      if (context.transport === 'websocket' && !context.executed) return;
      if (isAsyncIterable(result)) {
        // A query delivered in parts (@defer, @stream; a subscription never executed here).
        const { executed } = context;
        if (executed) setResult(reportedParts(context, executed, result as never) as never);
        return;
      }
      const single = result as ExecutionResult;
      if (single.extensions?.cost) return;
      const { executed } = context;
      const actual = executed && actualOf(executed, context.params, single);
      const reported = report(
        context.costAccount,
        context.cost?.requested ?? 0,
        single,
        actual,
        executed?.charged ?? 0,
      );
      if (reported instanceof Promise) return reported.then(setResult);
      setResult(reported);
    },

    // What never reached an operation (a malformed request, a batch refused whole, a persisted
    // operation refused in onParams) is reported here, and what a batch paid for operations that
    // never ran is given back.
    onResultProcess({ result, setResult, serverContext }) {
      const context = serverContext as DemandContext;
      if (isAsyncIterable(result)) return;
      const account = context.costAccount;
      const left = context.prepaid?.left ?? 0;
      const refunded = left > 0 && account && context.prepaid ? account.refund(left) : undefined;
      if (context.prepaid) context.prepaid.left = 0;
      const single = Array.isArray(result) ? undefined : (result as ExecutionResult);
      if (!single || single.extensions?.cost) return refunded?.then(() => {});
      const reported = () => report(account, context.batchCost ?? 0, single, undefined, 0);
      if (!refunded) {
        const answer = reported();
        if (answer instanceof Promise) return answer.then(setResult);
        return setResult(answer);
      }
      return refunded.then(reported).then(setResult);
    },
  };
}
