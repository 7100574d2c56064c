import { getDirective } from '@graphql-tools/utils';
import {
  type ExecutionResult,
  type GraphQLEnumValue,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
} from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { type SchemaUsage, schemaUsage, variableCoordinates } from '../graphql/plan/index.js';

export type WarningCode = 'DEPRECATED' | 'BETA' | 'EXPERIMENTAL';

/** One entry of `extensions.warnings`. */
export interface Warning {
  readonly code: WarningCode;
  readonly coordinate: string;
  readonly message: string;
}

type Element =
  | GraphQLField<unknown, unknown>
  | GraphQLField<unknown, unknown>['args'][number]
  | GraphQLInputField
  | GraphQLEnumValue;

const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/** The warning an element's markers call for: a deprecation first, then `@experimental`, `@beta`. */
function warningOf(
  schema: GraphQLSchema,
  coordinate: string,
  element: Element,
): Warning | undefined {
  if (element.deprecationReason != null) {
    const sunset = getDirective(schema, element, 'sunset')?.[0]?.date;
    const goes = typeof sunset === 'string' ? ` It goes away on ${sunset}.` : '';
    return {
      code: 'DEPRECATED',
      coordinate,
      message: `${coordinate} is deprecated: ${sentence(element.deprecationReason)}${goes}`,
    };
  }
  if (getDirective(schema, element, 'experimental')) {
    return {
      code: 'EXPERIMENTAL',
      coordinate,
      message: `${coordinate} is experimental: it may change or disappear without notice.`,
    };
  }
  if (getDirective(schema, element, 'beta')) {
    return {
      code: 'BETA',
      coordinate,
      message: `${coordinate} is beta: it works and is supported, but its shape may still change.`,
    };
  }
  return undefined;
}

const marksBySchema = new WeakMap<GraphQLSchema, ReadonlyMap<string, Warning>>();

/**
 * Every element of the schema that is deprecated (`@deprecated`, with the date of `@sunset` when
 * it has one), `@experimental` or `@beta`, by schema coordinate, with its warning. Worked out once
 * per schema.
 */
export function stabilityMarks(schema: GraphQLSchema): ReadonlyMap<string, Warning> {
  let marks = marksBySchema.get(schema);
  if (marks) return marks;
  const found = new Map<string, Warning>();
  const mark = (coordinate: string, element: Element) => {
    const warning = warningOf(schema, coordinate, element);
    if (warning) found.set(coordinate, warning);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type)) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        mark(`${type.name}.${field.name}`, field);
        for (const arg of field.args) mark(`${type.name}.${field.name}(${arg.name}:)`, arg);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields()))
        mark(`${type.name}.${field.name}`, field);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) mark(`${type.name}.${value.name}`, value);
    }
  }
  marks = found;
  marksBySchema.set(schema, marks);
  return marks;
}

const bySchema = new WeakMap<GraphQLSchema, WeakMap<SchemaUsage, readonly Warning[]>>();

/** The warnings of the coordinates an operation uses whatever its variables, once per document. */
export function warningsOf(schema: GraphQLSchema, usage: SchemaUsage): readonly Warning[] {
  let byUsage = bySchema.get(schema);
  if (!byUsage) {
    byUsage = new WeakMap();
    bySchema.set(schema, byUsage);
  }
  let warnings = byUsage.get(usage);
  if (!warnings) {
    const marks = stabilityMarks(schema);
    warnings = usage.coordinates.flatMap((coordinate) => marks.get(coordinate) ?? []);
    byUsage.set(usage, warnings);
  }
  return warnings;
}

/** The result with `extensions.warnings` (a subscription's first event, a single result). */
export const withWarnings = (
  result: ExecutionResult,
  warnings: readonly Warning[],
): ExecutionResult => ({
  ...result,
  extensions: { ...result.extensions, warnings },
});

/** What the operation's result carries in `extensions.warnings`; undefined for none. */
export function operationWarnings(args: {
  schema: GraphQLSchema;
  document: Parameters<typeof schemaUsage>[1];
  operationName?: string | null | undefined;
  variableValues?: Readonly<Record<string, unknown>> | null | undefined;
}): readonly Warning[] | undefined {
  const usage = schemaUsage(args.schema, args.document, args.operationName);
  let warnings = warningsOf(args.schema, usage);
  const fromVariables = variableCoordinates(usage, args.variableValues);
  if (fromVariables.length > 0) {
    const marks = stabilityMarks(args.schema);
    const more = fromVariables.flatMap((coordinate) => marks.get(coordinate) ?? []);
    if (more.length > 0) {
      const known = new Set(warnings.map((warning) => warning.coordinate));
      warnings = [...warnings, ...more.filter((warning) => !known.has(warning.coordinate))].sort(
        (a, b) => (a.coordinate < b.coordinate ? -1 : 1),
      );
    }
  }
  return warnings.length === 0 ? undefined : warnings;
}

/**
 * `extensions.warnings` on the result of an operation that uses a deprecated, experimental or beta
 * element (in its document, or as an enum value or input field in its variables): one entry per
 * coordinate, the result otherwise unchanged. A subscription's first event carries them (one a
 * fan-out group delivers gets them there: src/live/fan-out.ts). An operation using none gets no
 * `warnings` at all.
 */
export function stabilityWarnings(): Plugin {
  const warn = (args: Parameters<typeof operationWarnings>[0]) => {
    const all = operationWarnings(args);
    if (all === undefined) return undefined;
    let sent = false;
    return {
      // A single result, or the first event of a stream.
      done: (payload: Parameters<typeof handleStreamOrSingleExecutionResult>[0]) =>
        handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
          if (sent) return;
          sent = true;
          setResult(withWarnings(result, all));
        }),
    };
  };
  return {
    onExecute({ args }) {
      const warned = warn(args);
      return warned && { onExecuteDone: warned.done };
    },
    onSubscribe({ args }) {
      const warned = warn(args);
      return warned && { onSubscribeResult: warned.done };
    },
  };
}
