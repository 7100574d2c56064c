import { getDirective } from '@graphql-tools/utils';
import {
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  type ValueNode,
} from 'graphql';
import { MAX_PAGE_SIZE } from '../../domain/paging.js';
import { type Collector, fragmentsOf } from './walk.js';

/**
 * The cost of a request, from the weights the schema declares with the IBM GraphQL Cost
 * Directives (src/graphql/kit/cost-directives.ts, printed in schema/schema.graphql):
 * - a field weighs its `@cost`, else its type's `@cost`, else 1 for an object and 0 for a scalar
 *   or an enum; an argument with a `@cost` adds its weight when the request gives it;
 * - a list multiplies the weight and the selection of each item by its size: the value of its
 *   `@listSize` slicing argument (`first`), however the request spells it (literal, variable,
 *   variable default), else the assumed size; with `sizedFields`, that size is the size of those
 *   fields (a connection's `edges`); an unpaged list (`Query.categories`) counts its real size;
 *   a list with none of these counts as a full page (100);
 * - a slicing value the field would refuse (negative, not an integer) counts as a full page too:
 *   the request fails anyway, and no spelling makes a page look smaller than it is;
 * - introspection is priced like any other field (`__typename` is a scalar, free): `__schema` and
 *   `__type` weigh 1, and each of its lists counts by the schema's own size, the type list by the
 *   number of types and a type's fields by the average number of fields a type has (so that
 *   `types { fields }` counts every field of the schema once), and so on (`introspectionSizes`);
 *   a chain of `ofType` counts only as deep as the schema wraps a type (`[Pet!]!`: three, and
 *   the null under the named type), deeper ones never resolve;
 * - a field that `@skip` or `@include` leave out (a literal, or a variable's value) costs nothing.
 * The same weights price what execution resolved (`resolvedCost`), with each list's real length.
 */
export interface CostInput {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
  /** The real size of an unpaged list, by schema coordinate (`Query.categories`). */
  listSize?: (coordinate: string) => number | undefined;
}

interface ListSize {
  assumedSize: number | undefined;
  slicingArguments: readonly string[];
  sizedFields: readonly string[];
}

/** What the directives say of one field, read once per schema. */
interface FieldCost {
  coordinate: string;
  weight: number;
  /** Weights of the arguments that carry one. */
  argumentWeights: ReadonlyMap<string, number>;
  list: boolean;
  listSize: ListSize | undefined;
  /** Default values of the slicing arguments that have one. */
  slicingDefaults: ReadonlyMap<string, unknown>;
  type: GraphQLNamedType;
  /** How many of this field nested in a row can resolve (`__Type.ofType`); deeper ones cost 0. */
  chainLimit?: number;
}

type CostModel = Map<string, Map<string, FieldCost>>;

/** Fragments may spread fragments; validation rejects cycles, this only has to terminate. */
const MAX_FRAGMENT_NESTING = 50;

const models = new WeakMap<GraphQLSchema, CostModel>();

function weightOf(
  schema: GraphQLSchema,
  node: Parameters<typeof getDirective>[1],
  where: string,
): number | undefined {
  const weight = getDirective(schema, node, 'cost')?.[0]?.weight;
  if (weight === undefined) return undefined;
  const value = Number(weight);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`@cost(weight: ${JSON.stringify(weight)}) on ${where} is not a weight`);
  return value;
}

/** Reads the directives of every field once (and fails at start on a weight that is not one). */
export function costModel(schema: GraphQLSchema): CostModel {
  let model = models.get(schema);
  if (model) return model;
  model = new Map();
  const sizes = introspectionSizes(schema);
  const ofTypeChain = wrappingDepth(schema) + 1;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(isObjectType(type) || isInterfaceType(type))) continue;
    const fields = new Map<string, FieldCost>();
    for (const field of Object.values(type.getFields())) {
      let cost = fieldCost(schema, type.name, field);
      if (cost.coordinate === '__Type.ofType') cost = { ...cost, chainLimit: ofTypeChain };
      const size = sizes.get(cost.coordinate);
      fields.set(
        field.name,
        size === undefined
          ? cost
          : { ...cost, listSize: { assumedSize: size, slicingArguments: [], sizedFields: [] } },
      );
    }
    model.set(type.name, fields);
  }
  // The introspection entry points, which no type declares: objects of weight 1.
  const query = model.get(schema.getQueryType()?.name ?? '');
  for (const field of [SchemaMetaFieldDef, TypeMetaFieldDef])
    query?.set(field.name, fieldCost(schema, schema.getQueryType()?.name ?? '', field));
  models.set(schema, model);
  return model;
}

/**
 * The size each introspection list counts by, read off the schema: the type and directive lists
 * their length, and a list that every item of an enclosing list has (a type's fields, a field's
 * arguments) the average over those items, a fraction, so that the nested lists count what the
 * schema really holds (`types { fields { args } }` every argument of the schema once).
 */
export function introspectionSizes(schema: GraphQLSchema): Map<string, number> {
  const types = Object.values(schema.getTypeMap());
  const directives = schema.getDirectives();
  let fields = 0;
  let fieldArgs = 0;
  let inputFields = 0;
  let enumValues = 0;
  let interfaces = 0;
  let possibleTypes = 0;
  for (const type of types) {
    if (isObjectType(type) || isInterfaceType(type)) {
      const own = Object.values(type.getFields());
      fields += own.length;
      for (const field of own) fieldArgs += field.args.length;
      interfaces += type.getInterfaces().length;
    }
    if (isAbstractType(type)) possibleTypes += schema.getPossibleTypes(type).length;
    if (isInputObjectType(type)) inputFields += Object.keys(type.getFields()).length;
    if (isEnumType(type)) enumValues += type.getValues().length;
  }
  const average = (total: number, over: number) => total / Math.max(1, over);
  const directiveArgs = directives.reduce((sum, directive) => sum + directive.args.length, 0);
  return new Map([
    ['__Schema.types', types.length],
    ['__Schema.directives', directives.length],
    ['__Type.fields', average(fields, types.length)],
    ['__Type.inputFields', average(inputFields, types.length)],
    ['__Type.enumValues', average(enumValues, types.length)],
    ['__Type.interfaces', average(interfaces, types.length)],
    ['__Type.possibleTypes', average(possibleTypes, types.length)],
    ['__Field.args', average(fieldArgs, fields)],
    ['__Directive.args', average(directiveArgs, directives.length)],
  ]);
}

/**
 * The most wrappers (list, non-null) around any type the schema refers to: `[Pet!]!` has three.
 * The named type sits that many `ofType` down; the `ofType` under it is null, and none deeper
 * resolves.
 */
function wrappingDepth(schema: GraphQLSchema): number {
  const depthOf = (type: GraphQLType): number =>
    isListType(type) || isNonNullType(type) ? 1 + depthOf(type.ofType) : 0;
  let deepest = 0;
  const refer = (type: GraphQLType) => {
    deepest = Math.max(deepest, depthOf(type));
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        refer(field.type);
        for (const arg of field.args) refer(arg.type);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) refer(field.type);
    }
  }
  for (const directive of schema.getDirectives()) for (const arg of directive.args) refer(arg.type);
  return deepest;
}

function fieldCost(
  schema: GraphQLSchema,
  parent: string,
  field: GraphQLField<unknown, unknown>,
): FieldCost {
  const coordinate = `${parent}.${field.name}`;
  const type = getNamedType(field.type);
  const weight =
    weightOf(schema, field, coordinate) ??
    weightOf(schema, type, type.name) ??
    (isCompositeType(type) ? 1 : 0);
  const argumentWeights = new Map<string, number>();
  for (const arg of field.args) {
    const argWeight = weightOf(schema, arg, `${coordinate}(${arg.name}:)`);
    if (argWeight !== undefined) argumentWeights.set(arg.name, argWeight);
  }
  const directive = getDirective(schema, field, 'listSize')?.[0];
  const listSize: ListSize | undefined = directive && {
    assumedSize: typeof directive.assumedSize === 'number' ? directive.assumedSize : undefined,
    slicingArguments: directive.slicingArguments ?? [],
    sizedFields: directive.sizedFields ?? [],
  };
  const slicingDefaults = new Map<string, unknown>();
  for (const name of listSize?.slicingArguments ?? []) {
    const arg = field.args.find((candidate) => candidate.name === name);
    if (arg?.defaultValue !== undefined) slicingDefaults.set(name, arg.defaultValue);
  }
  return {
    coordinate,
    weight,
    argumentWeights,
    list: isListType(getNullableType(field.type)),
    listSize,
    slicingDefaults,
    type,
  };
}

/** What the cost rules read of a document's operation, besides the request's variables. */
interface Walk {
  readonly schema: GraphQLSchema;
  readonly model: CostModel;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

/** A document's operation as the cost rules read it, with the plan of what `resolvedCost` reads. */
export interface PreparedOperation {
  readonly walk: Walk;
  readonly operation: OperationDefinitionNode;
  readonly root: GraphQLNamedType;
  /** The defaults of the operation's variables. */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** The operation's selections as the estimate reads them. */
  readonly compiled: CompiledSet;
  /** The document's fragments as the estimate reads them, by name (undefined: no such type). */
  readonly fragments: ReadonlyMap<string, CompiledSet | undefined>;
  resolved: readonly PlannedField[] | undefined;
  /** The estimate, once one turned out `fixed` (no variable and no data change it). */
  fixedCost: number | undefined;
}

/** How a `@skip` or `@include` decides a selection: its literal, else a variable's value. */
interface Gate {
  readonly skip: boolean;
  readonly literal: boolean | undefined;
  readonly variable: string | undefined;
}

/** A slicing argument as a field is given it: a variable, or a literal's value (undefined: not given). */
interface SliceArgument {
  readonly name: string;
  readonly variable: string | undefined;
  readonly value: unknown;
}

/**
 * A selection as the estimate reads it, with everything that does not depend on the request
 * read once: the field's weights, its arguments' cost, its slicing arguments, its selection's.
 */
type Compiled = { readonly gates: readonly Gate[] } & (
  | {
      readonly kind: 'field';
      readonly name: string;
      readonly field: FieldCost;
      readonly argumentsCost: number;
      readonly slicing: readonly SliceArgument[] | undefined;
      children: CompiledSet | undefined;
    }
  | { readonly kind: 'inline'; set: CompiledSet }
  | { readonly kind: 'spread'; readonly name: string }
);

type CompiledSet = readonly Compiled[];

const NO_GATES: readonly Gate[] = Object.freeze([]);

function gatesOf(directives: readonly DirectiveNode[] | undefined): readonly Gate[] {
  if (!directives?.length) return NO_GATES;
  const gates: Gate[] = [];
  for (const directive of directives ?? []) {
    const name = directive.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const value = directive.arguments?.find((arg) => arg.name.value === 'if')?.value;
    const skip = name === 'skip';
    if (value?.kind === Kind.BOOLEAN)
      gates.push({ skip, literal: value.value, variable: undefined });
    else if (value?.kind === Kind.VARIABLE)
      gates.push({ skip, literal: undefined, variable: value.name.value });
  }
  return gates;
}

function slicingOf(node: FieldNode, field: FieldCost): SliceArgument[] | undefined {
  if (!field.listSize?.slicingArguments.length) return undefined;
  return field.listSize.slicingArguments.map((name): SliceArgument => {
    const value = node.arguments?.find((arg) => arg.name.value === name)?.value;
    return value?.kind === Kind.VARIABLE
      ? { name, variable: value.name.value, value: undefined }
      : { name, variable: undefined, value: value ? literal(value, {}) : undefined };
  });
}

const NOTHING: CompiledSet = Object.freeze([]);

/**
 * What the cost rules keep of an operation, collected from the plan's walk: each selection set
 * the walk goes into, as the estimate reads it (each selection once, in its order; what costs
 * nothing whatever the request, `__typename` or a field the schema lacks, is left out). It depends
 * on the document alone, so that an estimate reads a request's variables against it, not the
 * document.
 */
export function costCollector(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): Collector & { prepared(): PreparedOperation | undefined } {
  const model = costModel(schema);
  const sets = new Map<SelectionSetNode, Compiled[]>();
  const met = new Set<object>();
  const fields: { entry: Extract<Compiled, { kind: 'field' }>; node: FieldNode }[] = [];
  const inlines: { entry: Extract<Compiled, { kind: 'inline' }>; body: SelectionSetNode }[] = [];
  const into = (set: SelectionSetNode) => {
    let compiled = sets.get(set);
    if (!compiled) {
      compiled = [];
      sets.set(set, compiled);
    }
    return compiled;
  };
  return {
    field({ set, node, parent }) {
      if (met.has(node)) return;
      met.add(node);
      const field = model.get(parent.name)?.get(node.name.value);
      const compiled = into(set);
      if (!field) return;
      const entry = {
        gates: gatesOf(node.directives),
        kind: 'field' as const,
        name: node.name.value,
        field,
        argumentsCost: argumentsCost(node, field),
        slicing: slicingOf(node, field),
        children: undefined,
      };
      compiled.push(entry);
      fields.push({ entry, node });
    },
    fragment({ set, selection, type }) {
      if (met.has(selection)) return;
      met.add(selection);
      const compiled = into(set);
      const gates = gatesOf(selection.directives);
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        compiled.push({ gates, kind: 'spread', name: selection.name.value });
      } else if (type) {
        const entry = { gates, kind: 'inline' as const, set: NOTHING };
        compiled.push(entry);
        inlines.push({ entry, body: selection.selectionSet });
      }
    },
    prepared() {
      const root = schema.getRootType(operation.operation);
      if (!root) return undefined;
      for (const { entry, node } of fields)
        entry.children = node.selectionSet && (sets.get(node.selectionSet) ?? NOTHING);
      for (const { entry, body } of inlines) entry.set = sets.get(body) ?? NOTHING;
      const walk: Walk = { schema, model, fragments: fragmentsOf(document) };
      const fragments = new Map<string, CompiledSet | undefined>();
      for (const [name, fragment] of walk.fragments) {
        const type = schema.getType(fragment.typeCondition.name.value);
        fragments.set(name, type && (sets.get(fragment.selectionSet) ?? NOTHING));
      }
      return {
        walk,
        operation,
        root,
        defaults: defaultVariables(operation),
        compiled: sets.get(operation.selectionSet) ?? NOTHING,
        fragments,
        resolved: undefined,
        fixedCost: undefined,
      };
    },
  };
}

/**
 * The estimate, and whether it is `fixed`: the same for every request of this document and
 * operation, whatever its variables (no page size given by a variable) and whatever the data (no
 * unpaged list counted). An operation the document lacks is never fixed.
 */
export function estimateCost(
  prepared: PreparedOperation | undefined,
  input: Pick<CostInput, 'variables' | 'listSize'>,
): { cost: number; fixed: boolean } {
  if (!prepared) return { cost: 0, fixed: false };
  if (prepared.fixedCost !== undefined) return { cost: prepared.fixedCost, fixed: true };
  const variables = { ...prepared.defaults, ...(input.variables ?? {}) };
  let fixed = true;
  const realSize = (coordinate: string) => {
    fixed = false;
    return input.listSize?.(coordinate);
  };
  /**
   * Whether `@skip` or `@include` leave a selection out, as execution will decide: from a
   * literal, or from the request's value of a variable (or its default), which makes the
   * estimate vary.
   */
  const leftOut = (gates: readonly Gate[]) => {
    for (const { skip, literal: value, variable } of gates) {
      let condition: unknown = value;
      if (variable !== undefined) {
        fixed = false;
        condition = variables[variable];
      }
      if (skip ? condition === true : condition === false) return true;
    }
    return false;
  };

  /**
   * The size a list field's slicing arguments give it: the largest of those the request gives (a
   * value the field would refuse counts as a full page), else their defaults, else the assumed
   * size; undefined for a field with no slicing argument.
   */
  const sliceOf = (slicing: readonly SliceArgument[], field: FieldCost): number | undefined => {
    let size: number | undefined;
    for (const argument of slicing) {
      let value = argument.value;
      if (argument.variable !== undefined) {
        fixed = false;
        value = variables[argument.variable];
      }
      if (value == null) value = field.slicingDefaults.get(argument.name);
      if (value == null) continue;
      const items =
        typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : MAX_PAGE_SIZE;
      size = Math.max(size ?? 0, items);
    }
    return size ?? field.listSize?.assumedSize ?? MAX_PAGE_SIZE;
  };

  /**
   * `sized`: the size the enclosing field gives to some of this selection's lists; `chain`: how
   * many fields of the same name (`ofType`) enclose this selection in a row.
   */
  function selectionCost(
    set: CompiledSet,
    sized: { fields: readonly string[]; size: number } | undefined,
    nesting: number,
    chain: Chain | undefined,
  ): number {
    if (nesting > MAX_FRAGMENT_NESTING) return 0;
    let cost = 0;
    for (const selection of set) {
      if (selection.gates.length > 0 && leftOut(selection.gates)) continue;
      if (selection.kind === 'field') cost += estimate(selection, sized, nesting, chain);
      else if (selection.kind === 'inline')
        cost += selectionCost(selection.set, sized, nesting, chain);
      else cost += spreadCost(selection.name, sized, nesting, chain);
    }
    return cost;
  }

  /**
   * A fragment spread's cost, computed once per fragment, page size and nesting: a document whose
   * fragments each spread the next a few hundred times would otherwise cost a walk of millions of
   * spreads for a few kilobytes.
   */
  const spreads = new Map<string, number>();
  function spreadCost(
    name: string,
    sized: { fields: readonly string[]; size: number } | undefined,
    nesting: number,
    chain: Chain | undefined,
  ): number {
    const key = `${name}\u0000${nesting}\u0000${sized ? `${sized.size}\u0000${sized.fields}` : ''}\u0000${chain ? `${chain.field.coordinate}\u0000${chain.length}` : ''}`;
    let cost = spreads.get(key);
    if (cost === undefined) {
      const fragment = prepared?.fragments.get(name);
      cost = fragment ? selectionCost(fragment, sized, nesting + 1, chain) : 0;
      spreads.set(key, cost);
    }
    return cost;
  }

  function estimate(
    selection: Extract<Compiled, { kind: 'field' }>,
    sized: { fields: readonly string[]; size: number } | undefined,
    nesting: number,
    enclosing: Chain | undefined,
  ): number {
    const { field } = selection;
    let chain: Chain | undefined;
    if (field.chainLimit !== undefined) {
      const length = enclosing?.field === field ? enclosing.length + 1 : 1;
      if (length > field.chainLimit) return 0;
      chain = { field, length };
    }
    const slice = selection.slicing && sliceOf(selection.slicing, field);
    const childrenSized =
      field.listSize && field.listSize.sizedFields.length > 0 && slice !== undefined
        ? { fields: field.listSize.sizedFields, size: slice }
        : undefined;
    const children = selection.children
      ? selectionCost(selection.children, childrenSized, nesting, chain)
      : 0;
    const own = field.weight + children;
    const args = selection.argumentsCost;
    if (!field.list) return own + args;
    let items: number;
    if (sized?.fields.includes(selection.name)) items = sized.size;
    else if (field.listSize && field.listSize.sizedFields.length === 0 && slice !== undefined)
      items = slice;
    else items = realSize(field.coordinate) ?? field.listSize?.assumedSize ?? MAX_PAGE_SIZE;
    return items * own + args;
  }

  // Introspection's lists count averages, fractions of an item: the sum is rounded up once (past
  // what floating point adds to a sum that is whole).
  const cost = Math.ceil(selectionCost(prepared.compiled, undefined, 0, undefined) - 1e-9);
  // Such an estimate is the same at every request: it is kept, and not worked out again.
  if (fixed) prepared.fixedCost = cost;
  return { cost, fixed };
}

/** A field with a `chainLimit`, and how many of it enclose a selection in a row. */
interface Chain {
  readonly field: FieldCost;
  readonly length: number;
}

function argumentsCost(node: FieldNode, field: FieldCost): number {
  if (field.argumentWeights.size === 0) return 0;
  let cost = 0;
  for (const arg of node.arguments ?? []) cost += field.argumentWeights.get(arg.name.value) ?? 0;
  return cost;
}

/**
 * The cost of what execution resolved, with the same weights: each field in the response weighs
 * what it weighs in the estimate, a list counts the items it really holds, and a field the
 * response does not hold (skipped, or cut by an error) costs nothing. Fields the document selects
 * twice under one name are resolved once, so they count once. Never more than the estimate, but
 * for `__type(name:)` on a type with more fields than the average.
 */
export function costOfResult(prepared: PreparedOperation | undefined, data: unknown): number {
  if (!isRecord(data)) return 0;
  if (!prepared) return 0;
  const { walk, operation, root } = prepared;
  prepared.resolved ??= plannedFields(
    walk,
    collect(walk, operation.selectionSet, root, new Map(), new Set(), 0),
    root,
  );
  return fieldsCost(walk, prepared.resolved, data);
}

/**
 * What `resolvedCost` reads of a selection on a type: each response key with its field's weights,
 * planned once per operation (a page's answer has hundreds of objects of the same few selections);
 * a field's own selection is planned when an answer first holds an object for it.
 */
interface PlannedField {
  readonly key: string;
  readonly nodes: readonly FieldNode[];
  readonly field: FieldCost;
  readonly argumentsCost: number;
  children: readonly PlannedField[] | undefined;
}

function fieldsCost(
  walk: Walk,
  fields: readonly PlannedField[],
  value: Record<string, unknown>,
): number {
  let cost = 0;
  for (const planned of fields) {
    // A compiled query leaves what `@skip`/`@include` left out as undefined (never a value); a
    // null list holds no items (a type's `fields` in introspection, for a scalar).
    const resolved = value[planned.key];
    if (resolved === undefined || (resolved === null && planned.field.list)) continue;
    cost += planned.argumentsCost + itemsCost(walk, planned, resolved);
  }
  return cost;
}

function itemsCost(walk: Walk, planned: PlannedField, value: unknown): number {
  if (Array.isArray(value)) {
    let cost = 0;
    for (const item of value) cost += itemsCost(walk, planned, item);
    return cost;
  }
  if (!isRecord(value)) return planned.field.weight;
  if (!planned.children) {
    const fields = new Map<string, FieldNode[]>();
    const visited = new Set<string>();
    const type = planned.field.type;
    for (const node of planned.nodes)
      if (node.selectionSet) collect(walk, node.selectionSet, type, fields, visited, 0);
    planned.children = plannedFields(walk, fields, type);
  }
  return planned.field.weight + fieldsCost(walk, planned.children, value);
}

/** The response keys of a selection that the cost model knows (not `__typename`). */
function plannedFields(
  walk: Walk,
  fields: Map<string, FieldNode[]>,
  type: GraphQLNamedType,
): PlannedField[] {
  const planned: PlannedField[] = [];
  for (const [key, nodes] of fields) {
    const first = nodes[0];
    const field = first && walk.model.get(type.name)?.get(first.name.value);
    if (!first || !field) continue;
    planned.push({
      key,
      nodes,
      field,
      argumentsCost: argumentsCost(first, field),
      children: undefined,
    });
  }
  return planned;
}

/**
 * The field nodes of a selection on `type`, by response key, fragments included: each fragment
 * once (`visited`), as execution collects them, however many times it is spread.
 */
function collect(
  walk: Walk,
  selectionSet: SelectionSetNode,
  type: GraphQLNamedType,
  into: Map<string, FieldNode[]>,
  visited: Set<string>,
  nesting: number,
): Map<string, FieldNode[]> {
  if (nesting > MAX_FRAGMENT_NESTING) return into;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      const nodes = into.get(key);
      if (nodes) nodes.push(selection);
      else into.set(key, [selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (applies(walk, selection.typeCondition?.name.value, type))
        collect(walk, selection.selectionSet, type, into, visited, nesting);
    } else {
      const name = selection.name.value;
      const fragment = walk.fragments.get(name);
      if (visited.has(name) || !fragment || !applies(walk, fragment.typeCondition.name.value, type))
        continue;
      visited.add(name);
      collect(walk, fragment.selectionSet, type, into, visited, nesting + 1);
    }
  }
  return into;
}

function applies(walk: Walk, condition: string | undefined, type: GraphQLNamedType): boolean {
  if (condition === undefined || condition === type.name) return true;
  const abstract = walk.schema.getType(condition);
  return isAbstractType(abstract) && isObjectType(type) && walk.schema.isSubType(abstract, type);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
