import { readFileSync } from 'node:fs';
import {
  buildSchema,
  type ConstDirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  valueFromASTUntyped,
} from 'graphql';

/**
 * What a client computes from the published SDL alone (schema/schema.graphql), written apart from
 * the server's code (src/graphql/plan/cost.ts) so that a test can hold one against the other: the IBM
 * cost directives as docs/demand-control.md states the rule.
 */
export const publishedSchema: GraphQLSchema = buildSchema(
  readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8'),
);

function directive(
  node: { astNode?: { directives?: readonly ConstDirectiveNode[] } | null | undefined },
  name: string,
): Record<string, unknown> | undefined {
  const found = node.astNode?.directives?.find((d) => d.name.value === name);
  if (!found) return undefined;
  return Object.fromEntries(
    (found.arguments ?? []).map((arg) => [arg.name.value, valueFromASTUntyped(arg.value)]),
  );
}

function weight(field: GraphQLField<unknown, unknown>): number {
  const own = directive(field, 'cost')?.weight;
  if (own !== undefined) return Number(own);
  const type = getNamedType(field.type);
  const ofType = directive(type, 'cost')?.weight;
  if (ofType !== undefined) return Number(ofType);
  return isObjectType(type) ? 1 : 0;
}

function operationOf(document: DocumentNode): OperationDefinitionNode {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error('no operation');
  return operation as OperationDefinitionNode;
}

function fragmentsOf(document: DocumentNode) {
  return new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
}

export interface SdlCostInput {
  query: string;
  variables?: Record<string, unknown>;
  /** The real size of each unpaged list its description says is counted, by coordinate. */
  realSizes?: Record<string, number>;
}

/** The estimate of a one-operation document, from the published SDL. */
export function sdlEstimate({ query, variables = {}, realSizes = {} }: SdlCostInput): number {
  const document = parse(query);
  const operation = operationOf(document);
  const fragments = fragmentsOf(document);
  const values: Record<string, unknown> = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (values[name] === undefined && definition.defaultValue)
      values[name] = valueFromASTUntyped(definition.defaultValue);
  }
  const argumentValue = (node: FieldNode, name: string): unknown => {
    const arg = node.arguments?.find((a) => a.name.value === name);
    return arg ? valueFromASTUntyped(arg.value, values) : undefined;
  };

  const selection = (
    set: SelectionSetNode,
    type: GraphQLNamedType,
    sized?: { fields: string[]; size: number },
  ): number => {
    let total = 0;
    for (const item of set.selections) {
      // `@skip(if: true)` and `@include(if: false)`, literal or variable: not executed, free.
      const condition = (name: string) => {
        const found = item.directives?.find((d) => d.name.value === name)?.arguments?.[0];
        return found && valueFromASTUntyped(found.value, values);
      };
      if (condition('skip') === true || condition('include') === false) continue;
      if (item.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(item.name.value);
        if (fragment) total += selection(fragment.selectionSet, type, sized);
        continue;
      }
      if (item.kind === Kind.INLINE_FRAGMENT) {
        total += selection(item.selectionSet, type, sized);
        continue;
      }
      if (item.name.value.startsWith('__') || !isObjectType(type)) continue;
      const field = type.getFields()[item.name.value];
      if (!field) throw new Error(`no field ${type.name}.${item.name.value}`);
      const listSize = directive(field, 'listSize') as
        | { assumedSize?: number; slicingArguments?: string[]; sizedFields?: string[] }
        | undefined;
      let slice: number | undefined;
      if (listSize?.slicingArguments?.length) {
        const given = listSize.slicingArguments
          .map((name) => argumentValue(item, name))
          .filter((value) => value != null);
        slice =
          given.length === 0
            ? (listSize.assumedSize ?? 100)
            : Math.max(
                ...given.map((value) =>
                  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 100,
                ),
              );
      }
      const childSized =
        listSize?.sizedFields?.length && slice !== undefined
          ? { fields: listSize.sizedFields, size: slice }
          : undefined;
      const children = item.selectionSet
        ? selection(item.selectionSet, getNamedType(field.type), childSized)
        : 0;
      let args = 0;
      for (const arg of item.arguments ?? []) {
        const definition = field.args.find((a) => a.name === arg.name.value);
        const argWeight = definition && directive(definition, 'cost')?.weight;
        if (argWeight !== undefined) args += Number(argWeight);
      }
      const each = weight(field) + children;
      if (!isListType(getNullableType(field.type))) {
        total += each + args;
        continue;
      }
      const coordinate = `${type.name}.${field.name}`;
      const items = sized?.fields.includes(field.name)
        ? sized.size
        : listSize?.slicingArguments?.length && !listSize.sizedFields?.length
          ? (slice as number)
          : (realSizes[coordinate] ?? listSize?.assumedSize ?? 100);
      total += items * each + args;
    }
    return total;
  };

  const root = publishedSchema.getRootType(operation.operation);
  if (!root) throw new Error('no root type');
  return selection(operation.selectionSet, root);
}

/**
 * What a response resolved, by the same weights: each field present in `data` weighs its weight
 * once per item it holds. For documents that select no field twice under one name.
 */
export function sdlActual(query: string, data: unknown): number {
  const document = parse(query);
  const operation = operationOf(document);
  const fragments = fragmentsOf(document);
  const walk = (set: SelectionSetNode, type: GraphQLNamedType, value: unknown): number => {
    if (typeof value !== 'object' || value === null) return 0;
    let total = 0;
    for (const item of set.selections) {
      if (item.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(item.name.value);
        if (fragment) total += walk(fragment.selectionSet, type, value);
        continue;
      }
      if (item.kind === Kind.INLINE_FRAGMENT) {
        total += walk(item.selectionSet, type, value);
        continue;
      }
      const key = item.alias?.value ?? item.name.value;
      const record = value as Record<string, unknown>;
      if (item.name.value.startsWith('__') || !(key in record) || !isObjectType(type)) continue;
      const field = type.getFields()[item.name.value] as GraphQLField<unknown, unknown>;
      const list = isListType(getNullableType(field.type));
      // A null list holds no items.
      if (record[key] === null && list) continue;
      const items = Array.isArray(record[key]) ? (record[key] as unknown[]) : [record[key]];
      for (const element of items) {
        total += weight(field);
        if (item.selectionSet) total += walk(item.selectionSet, getNamedType(field.type), element);
      }
    }
    return total;
  };
  const root = publishedSchema.getRootType(operation.operation);
  if (!root) throw new Error('no root type');
  return walk(operation.selectionSet, root, data);
}
