import type { DocumentNode, GraphQLSchema, OperationTypeNode } from 'graphql';
import { type SchemaUsage, usageCollector } from './coordinates.js';
import { costCollector, type PreparedOperation } from './cost.js';
import {
  deprecatedCollector,
  listsCollector,
  type ReturnedType,
  returnedTypesCollector,
  scopesCollector,
  topCollector,
} from './facts.js';
import { type IncrementalSite, incrementalCollector } from './incremental.js';
import { perOperation } from './operation.js';
import { walkOperation } from './walk.js';

/**
 * Everything the policies read of one operation of a document, made by one walk of its
 * selections when the document is first run and kept with the parsed document (it goes when the
 * parse cache lets the document go). No policy walks the document itself.
 */
export interface OperationPlan {
  readonly type: OperationTypeNode;
  /** What the cost rule reads of the operation (`estimateCost`, `costOfResult`). */
  readonly cost: PreparedOperation | undefined;
  /** The schema coordinates it uses (usage reports, warnings). */
  readonly usage: SchemaUsage;
  /** The scopes its fields declare, `@skip`/`@include` or not (an idempotent replay's check). */
  readonly scopes: ReadonlySet<string>;
  /** `Type.field` and `field.argument` for each deprecated use (the deprecated-calls metric). */
  readonly deprecated: readonly string[];
  /** The coordinates of the list fields of object types it selects (the unpaged lists' counts). */
  readonly lists: readonly string[];
  /** The object types its fields return, and whether as lists (the response cache's tags). */
  readonly returned: readonly ReturnedType[];
  /** How many fields it selects at its top, through fragments (a mutation's `Idempotency-Key`). */
  readonly topFields: number;
  /** Whether its top selections are all introspection (`__schema`, `__type`, `__typename`). */
  readonly introspectionOnly: boolean;
  /** The names of the variables it declares. */
  readonly variables: readonly string[];
  /** Its `@defer` fragments and `@stream` fields (none for most operations). */
  readonly incremental: readonly IncrementalSite[];
}

/**
 * The plan of a document's operation (undefined: the document has no operation of that name),
 * made once per schema, document and operation name.
 */
export const planOf: (
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
) => OperationPlan | undefined = perOperation((schema, document, operation) => {
  const usage = usageCollector(schema, operation);
  const scopes = scopesCollector();
  const deprecated = deprecatedCollector();
  const lists = listsCollector();
  const returned = returnedTypesCollector();
  const top = topCollector();
  const cost = costCollector(schema, document, operation);
  const incremental = incrementalCollector(operation);
  walkOperation(schema, document, operation, [
    incremental,
    cost,
    usage,
    scopes,
    deprecated,
    lists,
    returned,
    top,
  ]);
  return Object.freeze({
    type: operation.operation,
    cost: cost.prepared(),
    usage: usage.usage(),
    scopes: scopes.scopes,
    deprecated: deprecated.uses,
    lists: [...lists.lists],
    returned: returned.returned(),
    topFields: top.top.fields,
    introspectionOnly: top.top.introspectionOnly,
    variables: (operation.variableDefinitions ?? []).map(
      (definition) => definition.variable.name.value,
    ),
    incremental: incremental.sites,
  });
});
