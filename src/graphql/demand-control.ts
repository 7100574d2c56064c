import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { createGraphQLError, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { isRecord } from '../domain/validation.js';
import type { CostAccount, CostBudgetStatus } from '../http/env.js';
import { resolvedCost } from './cost.js';
import type { CostContext } from './limits.js';

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
  params?: { operationName?: string | null | undefined; variables?: unknown };
  /** The caller's budget (on /graphql while RATE_LIMIT_COST_PER_MINUTE > 0). */
  costAccount?: CostAccount | undefined;
  /** `websocket`: subscriptions only, which are not charged and carry no report. */
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
  return createGraphQLError(message, {
    extensions: {
      code: 'RATE_LIMITED',
      status: 429,
      http: { status: 429, headers: { 'Retry-After': String(retryAfterSeconds) } },
    },
  });
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
 *   `extensions.cost` (`CostReport`). A subscription is charged its estimate when it starts,
 *   over either transport (MAX_SUBSCRIPTIONS_PER_CLIENT bounds how many are open); its events,
 *   and anything over the WebSocket, carry no report.
 */
export function demandControl(schema: GraphQLSchema): Plugin<DemandContext> {
  /** The report of one result; refunds first what an operation that ran did not spend. */
  const report = async (
    account: CostAccount | undefined,
    requested: number,
    result: ExecutionResult,
    ran?: { charged: number; document: DocumentNode; params: DemandContext['params'] },
  ): Promise<ExecutionResult> => {
    let actual: number | undefined;
    let status: CostBudgetStatus | undefined;
    if (ran) {
      const { operationName, variables } = ran.params ?? {};
      actual = resolvedCost({
        schema,
        document: ran.document,
        operationName,
        variables: isRecord(variables) ? variables : {},
        data: result.data,
      });
      const unspent = ran.charged - actual;
      if (account && unspent > 0) status = await account.refund(unspent);
    }
    if (account) status ??= await account.status();
    return withReport(result, {
      requestedQueryCost: requested,
      ...(actual === undefined ? {} : { actualQueryCost: actual }),
      ...(status ? { throttleStatus: status } : {}),
    });
  };

  return {
    // After the batch rules: a batch is charged the sum of its operations before any runs.
    onRequestParse: ({ serverContext }) => ({
      async onRequestParseDone() {
        const context = serverContext as DemandContext;
        const { batchCost, costAccount } = context;
        if (batchCost === undefined || !costAccount) return;
        const charge = await costAccount.charge(batchCost);
        if (!charge.allowed) throw rateLimited(batchCost, charge.status, charge.retryAfterSeconds);
        context.prepaid = { left: batchCost };
      },
    }),

    // A subscription is charged its estimate once, when it starts, over either transport; its
    // events carry no report.
    async onSubscribe({ args, setResultAndStopExecution }) {
      const { costAccount: account, cost } = args.contextValue;
      const requested = cost?.requested ?? 0;
      if (!account || requested <= 0) return;
      const charge = await account.charge(requested);
      if (!charge.allowed)
        setResultAndStopExecution({
          errors: [rateLimited(requested, charge.status, charge.retryAfterSeconds)],
        });
    },

    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue;
      if (context.transport === 'websocket') return;
      const requested = context.cost?.requested ?? 0;
      const account = context.costAccount;
      let charged = requested;
      if (account && requested > 0) {
        // The operations of a batch take from what the batch paid, and pay only what is missing.
        const fromBatch = Math.min(requested, context.prepaid?.left ?? 0);
        if (context.prepaid) context.prepaid.left -= fromBatch;
        const missing = requested - fromBatch;
        if (missing > 0) {
          const charge = await account.charge(missing);
          if (!charge.allowed) {
            charged = fromBatch;
            setResultAndStopExecution({
              errors: [rateLimited(requested, charge.status, charge.retryAfterSeconds)],
            });
            if (fromBatch > 0) await account.refund(fromBatch);
            return;
          }
        }
      }
      context.executed = { charged, document: args.document };
    },

    async onExecutionResult({ result, setResult, context: yogaContext }) {
      const context = yogaContext as DemandContext;
      if (context.transport === 'websocket' || isAsyncIterable(result) || Array.isArray(result))
        return;
      const single = result as ExecutionResult;
      if (single.extensions?.cost) return;
      const ran = context.executed && { ...context.executed, params: context.params };
      setResult(await report(context.costAccount, context.cost?.requested ?? 0, single, ran));
    },

    // What never reached an operation (a malformed request, a batch refused whole, a persisted
    // operation refused in onParams) is reported here, and what a batch paid for operations that
    // never ran is given back.
    async onResultProcess({ result, setResult, serverContext }) {
      const context = serverContext as DemandContext;
      if (context.transport === 'websocket' || isAsyncIterable(result)) return;
      const left = context.prepaid?.left ?? 0;
      if (left > 0 && context.costAccount && context.prepaid) {
        context.prepaid.left = 0;
        await context.costAccount.refund(left);
      }
      if (Array.isArray(result)) return;
      const single = result as ExecutionResult;
      if (single.extensions?.cost) return;
      setResult(await report(context.costAccount, context.batchCost ?? 0, single));
    },
  };
}
