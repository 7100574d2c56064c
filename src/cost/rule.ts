import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { isRecord } from '../domain/validation.js';
import { tooComplex } from '../errors/graphql.js';
import { costModel, operationEstimate } from '../graphql/plan/index.js';
import { noteOperationCost } from '../tracing/graphql.js';
import type { AskedOperation, ListSizes, ListSizesContext } from './unpaged-lists.js';

export interface CostRuleOptions {
  schema: GraphQLSchema;
  maxCost: number;
}

/** The cost rule: how much an operation costs (see `operationEstimate`), and its refusal. */
export interface CostRule {
  cost(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: unknown,
    listSizes: ListSizes | undefined,
  ): number;
  /** QUERY_TOO_COMPLEX when `cost` is over the limit. */
  check(cost: number): void;
}

export function costRule({ schema, maxCost }: CostRuleOptions): CostRule {
  // Read the schema's weights now: a `@cost` that is not a weight stops the start.
  costModel(schema);
  return {
    // An estimate that no variable and no data change is kept in the operation's plan.
    cost(document, operationName, variables, listSizes) {
      return operationEstimate({
        schema,
        document,
        operationName,
        variables: isRecord(variables) ? variables : {},
        listSize: (coordinate) => listSizes?.get(coordinate),
      }).cost;
    },
    check(cost) {
      if (cost > maxCost) {
        throw tooComplex(
          `This request costs ${cost} points, more than the limit of ${maxCost}; ` +
            'ask for smaller pages (first) or fewer nested lists',
        );
      }
    },
  };
}

/** Where the cost rule leaves an operation's estimate, for its budget and its report. */
export interface CostContext {
  /** The operation's estimated cost, once validation priced it (refused or not). */
  cost?: { requested: number };
  /** A batched request's: the sum of its operations' estimates (see `batchRules`). */
  batchCost?: number;
}

/**
 * The cost limit, in validation over the document Yoga parsed, with the operation's real variable
 * values: every page size counts however it is spelled (see `operationEstimate`). Over the limit
 * the operation is QUERY_TOO_COMPLEX and nothing runs; the refusal is thrown (as armor's limits are),
 * so that the validation kept by document (`documentRules`) never keeps a result that depends
 * on variables. Every transport goes through it. The estimate is left on the context, where the
 * cost budget and the response's `extensions.cost` read it (src/cost/demand-control.ts).
 */
export function costLimit(
  rule: CostRule,
): Plugin<{ params?: GraphQLParams } & ListSizesContext & CostContext> {
  return {
    onValidate:
      ({ context, params: { documentAST } }) =>
      ({ result }) => {
        if (result.length > 0) return;
        const { operationName, variables } = context.params ?? {};
        const requested = rule.cost(documentAST, operationName, variables, context.listSizes);
        (context as CostContext).cost = { requested };
        noteOperationCost(context, requested);
        rule.check(requested);
      },
  };
}

export interface BatchRulesOptions {
  /** The most operations a batched request may hold. */
  limit: number;
  rule: CostRule;
  /** The parsed document of each operation of a batch (the parse cache; undefined: none). */
  documentsOf: (batch: readonly unknown[]) => (DocumentNode | undefined)[];
  /** The sizes of the unpaged lists the operations of a request ask for. */
  sizesFor: (
    operations: readonly AskedOperation[],
    request: Request,
  ) => Promise<ListSizes | undefined>;
}

/**
 * What holds for a batched request as a whole, checked before any of its operations runs: at most
 * `limit` operations, and the sum of their costs under the cost limit (left on the request's
 * context as `batchCost`: the budget is charged it whole). Documents come from the parse cache
 * Yoga reads, so nothing is parsed twice.
 */
export function batchRules({
  limit,
  rule,
  documentsOf,
  sizesFor,
}: BatchRulesOptions): Plugin<CostContext> {
  return {
    onRequestParse: ({ request, serverContext }) => ({
      onRequestParseDone({ requestParserResult }) {
        // A single operation meets the cost rule in validation; nothing to wait for here.
        if (!Array.isArray(requestParserResult)) return;
        if (requestParserResult.length > limit)
          throw tooComplex(`A batch may hold at most ${limit} operations`);
        const documents = documentsOf(requestParserResult);
        const operations = requestParserResult.flatMap((params, at) => {
          const document = documents[at];
          return document ? [{ params, document }] : [];
        });
        return sizesFor(
          operations.map(({ params, document }) => ({
            document,
            operationName: params.operationName,
          })),
          request,
        ).then((sizes) => {
          let cost = 0;
          for (const { params, document } of operations)
            cost += rule.cost(document, params.operationName, params.variables, sizes);
          (serverContext as CostContext).batchCost = cost;
          rule.check(cost);
        });
      },
    }),
  };
}
