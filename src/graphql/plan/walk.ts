import {
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  type InlineFragmentNode,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
} from 'graphql';

/** A variable's value that `@skip` or `@include` needs for a selection to run. */
export interface Condition {
  readonly variable: string;
  readonly runsWhen: boolean;
  /** The variable's default, when the request leaves it out. */
  readonly fallback: unknown;
}

/**
 * Under what a selection runs: `leftOut` when a literal `@skip`/`@include` leaves it (or what
 * encloses it) out in every request; else the conditions on variables it runs under (none: it
 * always runs), `key` naming that set ('' for none, or past `MAX_CONDITION_SETS`).
 */
export interface Runs {
  readonly leftOut: boolean;
  readonly key: string;
  readonly conditions: readonly Condition[];
}

/** Where a selection sits: under how many fields, and whether inside introspection (`__schema`). */
interface Place {
  /** The selection set it is one of. */
  readonly set: SelectionSetNode;
  readonly runs: Runs;
  /** How many fields enclose it: 0 for the operation's top fields. */
  readonly depth: number;
  /** Whether it is in the operation's own selection set, not in a fragment. */
  readonly direct: boolean;
  /** Whether an introspection field (`__schema`, `__type`) encloses it, or it is one. */
  readonly introspection: boolean;
  /** The response keys (alias or name) of the fields that enclose it, outermost first. */
  readonly path: readonly string[];
}

/** A field the walk meets, with the schema's definition of it (undefined: none). */
export interface FieldVisit extends Place {
  readonly node: FieldNode;
  readonly parent: GraphQLNamedType;
  readonly definition: GraphQLField<unknown, unknown> | undefined;
}

/**
 * A fragment, inline or spread (`type` its condition): every one the walk meets, `entered` false
 * for a spread of a fragment already gone into under the same conditions.
 */
export interface FragmentVisit extends Place {
  readonly selection: InlineFragmentNode | FragmentSpreadNode;
  readonly type: GraphQLNamedType | undefined;
  readonly entered: boolean;
}

/** What one fact of the plan reads of the walk: its events, never the document itself. */
export interface Collector {
  field?(visit: FieldVisit): void;
  fragment?(visit: FragmentVisit): void;
}

/**
 * The most distinct sets of conditions one document is followed under: past it, what the rest
 * of its conditional selections use counts as used whatever the variables (reported, never
 * missed), so that fragments spread under many conditions are not walked once per set.
 */
const MAX_CONDITION_SETS = 32;

/** The key of the selections that a literal leaves out in every request. */
const LEFT_OUT = '\u0001left out';

const ALWAYS: Runs = Object.freeze({ leftOut: false, key: '', conditions: [] });
const NEVER: Runs = Object.freeze({ leftOut: true, key: LEFT_OUT, conditions: [] });

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

/** A document's fragments by name. */
export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  }
  return fragments;
}

/** The schema's field of a name on a type, the introspection fields included (as TypeInfo has it). */
export function fieldDefinition(
  schema: GraphQLSchema,
  parent: GraphQLNamedType,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (name === SchemaMetaFieldDef.name && schema.getQueryType() === parent)
    return SchemaMetaFieldDef;
  if (name === TypeMetaFieldDef.name && schema.getQueryType() === parent) return TypeMetaFieldDef;
  if (name === TypeNameMetaFieldDef.name && isCompositeType(parent)) return TypeNameMetaFieldDef;
  if (isObjectType(parent) || isInterfaceType(parent)) return parent.getFields()[name];
  return undefined;
}

/**
 * The one walk of an operation's selections, fragments included, telling each collector every
 * field and fragment it meets with its parent type and its `@skip`/`@include` conditions. Every
 * selection is met, those a literal leaves out too (`runs.leftOut`); a fragment is gone into once
 * per set of conditions it is spread under (at most `MAX_CONDITION_SETS` + 2 times), so a document
 * whose fragments spread each other many times costs no more than its size. A field the schema
 * does not have is not gone into (the document fails validation, or is about to).
 */
export function walkOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  collectors: readonly Collector[],
): void {
  const fieldCollectors = collectors.filter((collector) => collector.field);
  const fragmentCollectors = collectors.filter((collector) => collector.fragment);
  const fragments = fragmentsOf(document);
  const defaults = new Map<string, unknown>();
  for (const definition of operation.variableDefinitions ?? []) {
    const value = definition.defaultValue;
    if (value?.kind === Kind.BOOLEAN) defaults.set(definition.variable.name.value, value.value);
  }
  const sets = new Set<string>();
  const visited = new Set<string>();

  const runsOf = (selectionRuns: boolean | Condition[], enclosing: Runs): Runs => {
    if (enclosing.leftOut || selectionRuns === false) return NEVER;
    if (selectionRuns === true) return enclosing;
    const conditions = [...enclosing.conditions, ...selectionRuns];
    let key = conditions.map((c) => `${c.variable}${c.runsWhen ? '' : '!'}`).join(' ');
    if (!sets.has(key) && sets.size >= MAX_CONDITION_SETS) key = '';
    if (key) sets.add(key);
    return key ? { leftOut: false, key, conditions } : ALWAYS;
  };

  const fragment = (visit: FragmentVisit) => {
    for (const collector of fragmentCollectors) collector.fragment?.(visit);
  };

  const selections = (selectionSet: SelectionSetNode, parent: GraphQLNamedType, at: Place) => {
    for (const selection of selectionSet.selections) {
      const runs = runsOf(conditionsOf(selection.directives, defaults), at.runs);
      const place = { ...at, set: selectionSet, runs };
      if (selection.kind === Kind.FIELD) {
        const definition = fieldDefinition(schema, parent, selection.name.value);
        const visit: FieldVisit = {
          ...place,
          introspection: at.introspection || selection.name.value.startsWith('__'),
          node: selection,
          parent,
          definition,
        };
        for (const collector of fieldCollectors) collector.field?.(visit);
        if (definition && selection.selectionSet) {
          selections(selection.selectionSet, getNamedType(definition.type), {
            ...visit,
            depth: at.depth + 1,
            path: [...at.path, selection.alias?.value ?? selection.name.value],
          });
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition
          ? schema.getType(selection.typeCondition.name.value)
          : parent;
        fragment({ ...place, selection, type, entered: true });
        if (type) selections(selection.selectionSet, type, place);
      } else {
        const name = selection.name.value;
        const key = `${name}\u0000${place.runs.key}`;
        const definition = fragments.get(name);
        const type = definition && schema.getType(definition.typeCondition.name.value);
        const entered = !visited.has(key);
        fragment({ ...place, selection, type, entered });
        if (!entered) continue;
        visited.add(key);
        if (definition && type)
          selections(definition.selectionSet, type, { ...place, direct: false });
      }
    }
  };

  const root = schema.getRootType(operation.operation);
  if (root)
    selections(operation.selectionSet, root, {
      set: operation.selectionSet,
      runs: ALWAYS,
      depth: 0,
      direct: true,
      introspection: false,
      path: [],
    });
}
