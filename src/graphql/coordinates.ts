import {
  type DirectiveNode,
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

/** A variable's value that `@skip` or `@include` needs for a selection to run. */
export interface Condition {
  readonly variable: string;
  readonly runsWhen: boolean;
  /** The variable's default, when the request leaves it out. */
  readonly fallback: unknown;
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

const NONE: SchemaUsage = Object.freeze({ coordinates: [], variables: [], conditional: [] });

/**
 * The most distinct sets of conditions one document is followed under: past it, what the rest
 * of its conditional selections use counts as used whatever the variables (reported, never
 * missed), so that fragments spread under many conditions are not collected once per set.
 */
const MAX_CONDITION_SETS = 32;

/**
 * How `@skip`/`@include` decide a selection in every request: `false` when a literal leaves it
 * out, `true` when it always runs, else the conditions on variables it runs under.
 */
function conditionsOf(
  directives: readonly DirectiveNode[] | undefined,
  defaults: ReadonlyMap<string, unknown>,
): boolean | Condition[] {
  if (!directives?.length) return true;
  const conditions: Condition[] = [];
  for (const directive of directives) {
    const name = directive.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const value = directive.arguments?.find((arg) => arg.name.value === 'if')?.value;
    const runsWhen = name === 'include';
    if (value?.kind === Kind.BOOLEAN) {
      if (value.value !== runsWhen) return false;
    } else if (value?.kind === Kind.VARIABLE) {
      const variable = value.name.value;
      conditions.push({ variable, runsWhen, fallback: defaults.get(variable) });
    }
  }
  return conditions.length === 0 ? true : conditions;
}

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
  const defaults = new Map<string, unknown>();
  for (const definition of operation.variableDefinitions ?? []) {
    const value = definition.defaultValue;
    if (value?.kind === Kind.BOOLEAN) defaults.set(definition.variable.name.value, value.value);
  }
  /** What the selections under each set of conditions use, by the set's key. */
  const underConditions = new Map<
    string,
    { conditions: readonly Condition[]; used: Set<string> }
  >();
  /** Where the selection being collected adds its coordinates. */
  let into = used;

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

  /** Adds what a selection set uses, under `conditions` (its key `under`; '' for none). */
  const addSelections = (
    selectionSet: SelectionSetNode,
    parent: GraphQLNamedType,
    conditions: readonly Condition[],
    under: string,
  ) => {
    for (const selection of selectionSet.selections) {
      const runs = conditionsOf(selection.directives, defaults);
      if (runs === false) continue;
      const own = runs === true ? conditions : [...conditions, ...runs];
      let key = under;
      if (own !== conditions) {
        key = own.map((c) => `${c.variable}${c.runsWhen ? '' : '!'}`).join(' ');
        if (!underConditions.has(key) && underConditions.size >= MAX_CONDITION_SETS) key = '';
        if (key && !underConditions.has(key))
          underConditions.set(key, { conditions: own, used: new Set() });
      }
      into = underConditions.get(key)?.used ?? used;
      const nested = key ? own : [];
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name.startsWith('__')) continue;
        if (!isObjectType(parent) && !isInterfaceType(parent)) continue;
        const field = parent.getFields()[name];
        if (!field) continue;
        into.add(`${parent.name}.${name}`);
        for (const argument of selection.arguments ?? []) {
          const definition = field.args.find((arg) => arg.name === argument.name.value);
          if (!definition) continue;
          into.add(`${parent.name}.${name}(${definition.name}:)`);
          addType(getNamedType(definition.type));
          addValue(argument.value, definition.type);
        }
        const type = getNamedType(field.type);
        addType(type);
        if (selection.selectionSet) addSelections(selection.selectionSet, type, nested, key);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition
          ? schema.getType(selection.typeCondition.name.value)
          : parent;
        addType(condition);
        if (condition) addSelections(selection.selectionSet, condition, nested, key);
      } else {
        const name = selection.name.value;
        // A fragment once per set of conditions (at most MAX_CONDITION_SETS + 1 times).
        const visit = `${name}\u0000${key}`;
        if (visitedFragments.has(visit)) continue;
        visitedFragments.add(visit);
        const fragment = fragments.get(name);
        const condition = fragment && schema.getType(fragment.typeCondition.name.value);
        addType(condition);
        if (fragment && condition) addSelections(fragment.selectionSet, condition, nested, key);
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
  if (root) addSelections(operation.selectionSet, root, [], '');
  const conditional = [...underConditions.values()].flatMap(({ conditions, used: under }) => {
    const coordinates = [...under].filter((coordinate) => !used.has(coordinate)).sort();
    return coordinates.length > 0 ? [Object.freeze({ conditions, coordinates })] : [];
  });
  return Object.freeze({ coordinates: Object.freeze([...used].sort()), variables, conditional });
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
