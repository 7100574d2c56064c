import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isObjectType,
  isSpecifiedScalarType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  typeFromAST,
  type ValueNode,
} from 'graphql';
import { perOperation } from './operation.js';

/** A variable whose value can name more coordinates: an enum value, an input object's fields. */
export interface VariableUse {
  readonly name: string;
  readonly type: GraphQLInputType;
}

/** What an operation uses of the schema, as schema coordinates. */
export interface SchemaUsage {
  /**
   * Every coordinate the operation uses whatever its variables, sorted: the types it meets
   * (`Pet`; not the built-in scalars), the fields it selects (`Pet.orders`), the arguments it
   * passes, literally or as a variable (`Query.pets(status:)`), the input fields it writes
   * (`NewPet.status`) and the enum values it writes (`PetStatus.sold`). Introspection is not
   * counted.
   */
  readonly coordinates: readonly string[];
  /** Variables whose values, read at run time, name enum values and input fields too. */
  readonly variables: readonly VariableUse[];
}

const NONE: SchemaUsage = Object.freeze({ coordinates: [], variables: [] });

const usageOf = perOperation(collect);

/**
 * The schema coordinates an operation of a document uses: a pure function of the schema, the
 * document and the operation name, worked out once per document (Yoga hands the same document
 * object for the same text) and kept with it. Enum values and input fields that arrive in
 * variables are not in it: `variableCoordinates` reads them from the values of each request.
 * A document that does not validate against the schema is not expected here (execution runs
 * only validated ones); what does not resolve is skipped.
 */
export function schemaUsage(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
): SchemaUsage {
  return usageOf(schema, document, operationName) ?? NONE;
}

function collect(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): SchemaUsage {
  const used = new Set<string>();
  const variables: VariableUse[] = [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }
  const visitedFragments = new Set<string>();

  const addType = (type: GraphQLNamedType | undefined) => {
    if (type && !isSpecifiedScalarType(type) && !isIntrospectionType(type)) used.add(type.name);
  };

  const addValue = (value: ValueNode, type: GraphQLInputType) => {
    const nullable = getNullableType(type);
    if (value.kind === Kind.VARIABLE || value.kind === Kind.NULL) return;
    if (isListType(nullable)) {
      const items = value.kind === Kind.LIST ? value.values : [value];
      for (const item of items) addValue(item, nullable.ofType);
      return;
    }
    if (isEnumType(nullable) && value.kind === Kind.ENUM) {
      used.add(`${nullable.name}.${value.value}`);
    } else if (isInputObjectType(nullable) && value.kind === Kind.OBJECT) {
      const fields = nullable.getFields();
      for (const field of value.fields) {
        const definition = fields[field.name.value];
        if (!definition) continue;
        used.add(`${nullable.name}.${definition.name}`);
        addType(getNamedType(definition.type));
        addValue(field.value, definition.type);
      }
    }
  };

  const addSelections = (selectionSet: SelectionSetNode, parent: GraphQLNamedType) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name.startsWith('__')) continue;
        if (!isObjectType(parent) && !isInterfaceType(parent)) continue;
        const field = parent.getFields()[name];
        if (!field) continue;
        used.add(`${parent.name}.${name}`);
        for (const argument of selection.arguments ?? []) {
          const definition = field.args.find((arg) => arg.name === argument.name.value);
          if (!definition) continue;
          used.add(`${parent.name}.${name}(${definition.name}:)`);
          addType(getNamedType(definition.type));
          addValue(argument.value, definition.type);
        }
        const type = getNamedType(field.type);
        addType(type);
        if (selection.selectionSet) addSelections(selection.selectionSet, type);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition
          ? schema.getType(selection.typeCondition.name.value)
          : parent;
        addType(condition);
        if (condition) addSelections(selection.selectionSet, condition);
      } else {
        const name = selection.name.value;
        if (visitedFragments.has(name)) continue;
        visitedFragments.add(name);
        const fragment = fragments.get(name);
        const condition = fragment && schema.getType(fragment.typeCondition.name.value);
        addType(condition);
        if (fragment && condition) addSelections(fragment.selectionSet, condition);
      }
    }
  };

  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) continue;
    const named = getNamedType(type);
    addType(named);
    if (definition.defaultValue) addValue(definition.defaultValue, type);
    if (isEnumType(named) || isInputObjectType(named))
      variables.push({ name: definition.variable.name.value, type });
  }
  const root = schema.getRootType(operation.operation) ?? undefined;
  addType(root);
  if (root) addSelections(operation.selectionSet, root);
  return Object.freeze({ coordinates: Object.freeze([...used].sort()), variables });
}

/**
 * The enum values and input fields that a request's variable values name (`PetStatus.sold` for
 * `$status: "sold"`, `NewPet.status` for an `input` holding `status`), for the variables
 * `schemaUsage` found. Values that name nothing in the schema (they fail coercion) are skipped,
 * so what a caller sends cannot make up coordinates.
 */
export function variableCoordinates(
  usage: SchemaUsage,
  values: Readonly<Record<string, unknown>> | null | undefined,
): string[] {
  if (usage.variables.length === 0 || !values) return [];
  const found = new Set<string>();
  const add = (value: unknown, type: GraphQLInputType) => {
    if (value === null || value === undefined) return;
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      for (const item of Array.isArray(value) ? value : [value]) add(item, nullable.ofType);
    } else if (isEnumType(nullable)) {
      if (typeof value === 'string' && nullable.getValue(value))
        found.add(`${nullable.name}.${value}`);
    } else if (isInputObjectType(nullable) && typeof value === 'object') {
      const fields = nullable.getFields();
      for (const [name, fieldValue] of Object.entries(value)) {
        const field = fields[name];
        if (!field) continue;
        found.add(`${nullable.name}.${name}`);
        add(fieldValue, field.type);
      }
    }
  };
  for (const variable of usage.variables) add(values[variable.name], variable.type);
  return [...found];
}
