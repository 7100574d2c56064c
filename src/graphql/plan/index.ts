import type { DocumentNode, GraphQLSchema } from 'graphql';
import { NO_USAGE, type SchemaUsage } from './coordinates.js';
import { type CostInput, costOfResult, estimateCost } from './cost.js';
import { planOf } from './plan.js';

export {
  type Condition,
  type ConditionalUse,
  type SchemaUsage,
  type VariableUse,
  variableCoordinates,
} from './coordinates.js';
export { type CostInput, costModel, introspectionSizes } from './cost.js';
export type { ReturnedType } from './facts.js';
export type { Argument, IncrementalSite } from './incremental.js';
export { type OperationPlan, planOf } from './plan.js';

/**
 * The estimated cost of an operation (see `CostInput`): what the budget is charged before it
 * runs, and whether it is `fixed`: the same for every request of this document and operation,
 * whatever its variables (no page size given by a variable) and whatever the data (no unpaged
 * list counted). An operation the document lacks is never fixed.
 */
export function operationEstimate(input: CostInput): { cost: number; fixed: boolean } {
  return estimateCost(planOf(input.schema, input.document, input.operationName)?.cost, input);
}

/**
 * The cost of what execution resolved, with the estimate's weights: each field in the response
 * weighs what it weighs in the estimate, a list counts the items it really holds (see
 * `costOfResult`).
 */
export function resolvedCost(input: {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null | undefined;
  data: unknown;
}): number {
  return costOfResult(planOf(input.schema, input.document, input.operationName)?.cost, input.data);
}

/**
 * The schema coordinates an operation of a document uses (see `SchemaUsage`), from its plan.
 * A document that does not validate against the schema is not expected here (execution runs
 * only validated ones); what does not resolve is skipped.
 */
export function schemaUsage(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
): SchemaUsage {
  return planOf(schema, document, operationName)?.usage ?? NO_USAGE;
}
