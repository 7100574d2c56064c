import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/paging.js';

/**
 * The cost of an operation: an upper bound on the number of fields its response can hold. Every
 * field counts 1; a list multiplies what it holds by its bound. A connection's `edges` are bounded
 * by the connection's `first` as the request really spells it (literal, variable or default), an
 * unpaged list (`Query.categories`) by its real size, any other list by the largest page size.
 * Introspection is free: GraphiQL needs it, and the depth limit bounds it.
 */
export interface CostInput {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
  /** The real size of an unpaged list, by schema coordinate (`Query.categories`). */
  listSize?: (coordinate: string) => number | undefined;
}

/** Fragments may spread fragments; validation rejects cycles, this only has to terminate. */
const MAX_FRAGMENT_NESTING = 50;

export function operationCost(input: CostInput): number {
  const operation = findOperation(input.document, input.operationName);
  if (!operation) return 0;
  const root = input.schema.getRootType(operation.operation);
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of input.document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }
  const variables = { ...defaultVariables(operation), ...(input.variables ?? {}) };
  const listSize = input.listSize ?? (() => undefined);

  function selectionCost(
    selectionSet: SelectionSetNode,
    type: GraphQLNamedType,
    pageSize: number | undefined,
    nesting: number,
  ): number {
    if (nesting > MAX_FRAGMENT_NESTING) return 0;
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        cost += fieldCost(selection, type, pageSize, nesting);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition
          ? input.schema.getType(selection.typeCondition.name.value)
          : type;
        if (condition) cost += selectionCost(selection.selectionSet, condition, pageSize, nesting);
      } else {
        const fragment = fragments.get(selection.name.value);
        const condition = fragment && input.schema.getType(fragment.typeCondition.name.value);
        if (fragment && condition)
          cost += selectionCost(fragment.selectionSet, condition, pageSize, nesting + 1);
      }
    }
    return cost;
  }

  function fieldCost(
    node: FieldNode,
    parent: GraphQLNamedType,
    pageSize: number | undefined,
    nesting: number,
  ): number {
    const name = node.name.value;
    if (name.startsWith('__')) return 0;
    if (!isObjectType(parent) && !isInterfaceType(parent)) return 0;
    const field = parent.getFields()[name];
    if (!field) return 0; // validation reports it
    const ownPageSize = field.args.some((arg) => arg.name === 'first')
      ? pageSizeOf(node, field, variables)
      : undefined;
    const children = node.selectionSet
      ? selectionCost(node.selectionSet, getNamedType(field.type), ownPageSize, nesting)
      : 0;
    const items = isListType(getNullableType(field.type))
      ? name === 'edges' && pageSize !== undefined
        ? pageSize
        : (listSize(`${parent.name}.${name}`) ?? MAX_PAGE_SIZE)
      : 1;
    return items * (1 + children);
  }

  return selectionCost(operation.selectionSet, root, undefined, 0);
}

function findOperation(
  document: DocumentNode,
  operationName: string | null | undefined,
): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (operationName) return operations.find((operation) => operation.name?.value === operationName);
  return operations.length === 1 ? operations[0] : undefined;
}

function defaultVariables(operation: OperationDefinitionNode): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue)
      defaults[definition.variable.name.value] = literal(definition.defaultValue, {});
  }
  return defaults;
}

function literal(value: ValueNode, variables: Record<string, unknown>): unknown {
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) return variables[value.name.value];
  if (value.kind === Kind.NULL) return null;
  return Number.NaN;
}

/**
 * The page size a connection field will really use. A value the field would reject (not an
 * integer, out of range) costs the largest page: the request fails anyway, and no spelling can
 * make a page look smaller than it is.
 */
function pageSizeOf(
  node: FieldNode,
  field: GraphQLField<unknown, unknown>,
  variables: Record<string, unknown>,
): number {
  const argument = node.arguments?.find((arg) => arg.name.value === 'first');
  const value = argument ? literal(argument.value, variables) : undefined;
  if (value == null) {
    const fallback = field.args.find((arg) => arg.name === 'first')?.defaultValue;
    return typeof fallback === 'number' ? fallback : DEFAULT_PAGE_SIZE;
  }
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
    ? Math.min(value, MAX_PAGE_SIZE)
    : MAX_PAGE_SIZE;
}
