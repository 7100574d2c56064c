import {
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
  typeFromAST,
  type ValueNode,
} from 'graphql';
import type { Collector, Condition, Runs } from './walk.js';

export type { Condition } from './walk.js';

/** A variable whose value can name more coordinates: an enum value, an input object's fields. */
export interface VariableUse {
  readonly name: string;
  readonly type: GraphQLInputType;
}

/** Coordinates used only by selections that run when all of `conditions` hold. */
export interface ConditionalUse {
  readonly conditions: readonly Condition[];
  readonly coordinates: readonly string[];
}

/** What an operation uses of the schema, as schema coordinates. */
export interface SchemaUsage {
  /**
   * Every coordinate the operation uses whatever its variables, sorted: the types it meets
   * (`Pet`; not the built-in scalars), the fields it selects (`Pet.orders`), the arguments it
   * passes, literally or as a variable (`Query.pets(status:)`), the input fields it writes
   * (`NewPet.status`) and the enum values it writes (`PetStatus.sold`). Introspection is not
   * counted, nor a selection that `@skip(if: true)` or `@include(if: false)` leave out.
   */
  readonly coordinates: readonly string[];
  /** Variables whose values, read at run time, name enum values and input fields too. */
  readonly variables: readonly VariableUse[];
  /** What selections that `@skip`/`@include` run or not by a variable's value use besides. */
  readonly conditional: readonly ConditionalUse[];
}

export const NO_USAGE: SchemaUsage = Object.freeze({
  coordinates: [],
  variables: [],
  conditional: [],
});

/**
 * The schema coordinates an operation uses (`SchemaUsage`), collected from the plan's walk: its
 * variables' types and defaults, and what each selection that runs names, under the conditions it
 * runs under. Enum values and input fields that arrive in variables are not in it:
 * `variableCoordinates` reads them from the values of each request.
 */
export function usageCollector(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
): Collector & { usage(): SchemaUsage } {
  const used = new Set<string>();
  const variables: VariableUse[] = [];
  /** What the selections under each set of conditions use, by the set's key. */
  const underConditions = new Map<
    string,
    { conditions: readonly Condition[]; used: Set<string> }
  >();
  let into = used;
  const under = (runs: Runs) => {
    if (!runs.key) return used;
    let set = underConditions.get(runs.key);
    if (!set) {
      set = { conditions: runs.conditions, used: new Set() };
      underConditions.set(runs.key, set);
    }
    return set.used;
  };

  const addType = (type: GraphQLNamedType | undefined) => {
    if (type && !isSpecifiedScalarType(type) && !isIntrospectionType(type)) into.add(type.name);
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
      into.add(`${nullable.name}.${value.value}`);
    } else if (isInputObjectType(nullable) && value.kind === Kind.OBJECT) {
      const fields = nullable.getFields();
      for (const field of value.fields) {
        const definition = fields[field.name.value];
        if (!definition) continue;
        into.add(`${nullable.name}.${definition.name}`);
        addType(getNamedType(definition.type));
        addValue(field.value, definition.type);
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
  addType(schema.getRootType(operation.operation) ?? undefined);

  return {
    field({ runs, introspection, node, parent, definition }) {
      if (runs.leftOut || introspection || !definition) return;
      if (!isObjectType(parent) && !isInterfaceType(parent)) return;
      into = under(runs);
      const name = node.name.value;
      into.add(`${parent.name}.${name}`);
      for (const argument of node.arguments ?? []) {
        const argumentDefinition = definition.args.find((arg) => arg.name === argument.name.value);
        if (!argumentDefinition) continue;
        into.add(`${parent.name}.${name}(${argumentDefinition.name}:)`);
        addType(getNamedType(argumentDefinition.type));
        addValue(argument.value, argumentDefinition.type);
      }
      addType(getNamedType(definition.type));
    },
    fragment({ runs, introspection, type, entered }) {
      if (runs.leftOut || introspection || !entered) return;
      into = under(runs);
      addType(type);
    },
    usage() {
      const conditional = [...underConditions.values()].flatMap(({ conditions, used: set }) => {
        const coordinates = [...set].filter((coordinate) => !used.has(coordinate)).sort();
        return coordinates.length > 0 ? [Object.freeze({ conditions, coordinates })] : [];
      });
      return Object.freeze({
        coordinates: Object.freeze([...used].sort()),
        variables,
        conditional,
      });
    },
  };
}

/**
 * The enum values and input fields that a request's variable values name (`PetStatus.sold` for
 * `$status: "sold"`, `NewPet.status` for an `input` holding `status`), for the variables
 * `schemaUsage` found, and what the selections its `@skip`/`@include` variables let run use.
 * Values that name nothing in the schema (they fail coercion) are skipped, so what a caller sends
 * cannot make up coordinates.
 */
export function variableCoordinates(
  usage: SchemaUsage,
  values: Readonly<Record<string, unknown>> | null | undefined,
): string[] {
  if (usage.variables.length === 0 && usage.conditional.length === 0) return [];
  const found = new Set<string>();
  for (const { conditions, coordinates } of usage.conditional) {
    const runs = conditions.every(
      ({ variable, runsWhen, fallback }) => (values?.[variable] ?? fallback) === runsWhen,
    );
    if (runs) for (const coordinate of coordinates) found.add(coordinate);
  }
  if (!values) return [...found];
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
