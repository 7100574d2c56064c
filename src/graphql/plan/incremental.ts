import {
  type DirectiveNode,
  Kind,
  type OperationDefinitionNode,
  type ValueNode,
  valueFromASTUntyped,
} from 'graphql';
import type { Collector, Runs } from './walk.js';

/** A literal, or a variable of the request (with its default when the request leaves it out). */
export type Argument<T> = T | { readonly variable: string; readonly fallback: unknown };

/**
 * A `@defer` fragment or a `@stream` field of an operation: where it is (the response keys of the
 * fields that enclose the object a fragment applies to, or that lead to a streamed list, the list
 * included) and its arguments as written. Incremental delivery (src/incremental/) reads it to
 * announce what is pending in graphql-js 17's format.
 */
export interface IncrementalSite {
  readonly kind: 'defer' | 'stream';
  readonly path: readonly string[];
  readonly label: string | undefined;
  /** `if` (default true). */
  readonly enabled: Argument<boolean>;
  /** `@stream`'s `initialCount` (default 0); 0 for `@defer`. */
  readonly initialCount: Argument<number>;
  /** The `@skip`/`@include` conditions it runs under. */
  readonly runs: Runs;
}

/** An argument of a directive, as a literal or a variable of the operation. */
function argument<T>(
  directive: DirectiveNode,
  name: string,
  fallback: T,
  defaults: ReadonlyMap<string, unknown>,
): Argument<T> {
  const value: ValueNode | undefined = directive.arguments?.find(
    (arg) => arg.name.value === name,
  )?.value;
  if (!value) return fallback;
  if (value.kind === Kind.VARIABLE) {
    const variable = value.name.value;
    return { variable, fallback: defaults.get(variable) ?? fallback };
  }
  return valueFromASTUntyped(value) as T;
}

/** The `@defer` fragments and `@stream` fields of an operation, as the walk meets them. */
export function incrementalCollector(
  operation: OperationDefinitionNode,
): Collector & { sites: IncrementalSite[] } {
  const sites: IncrementalSite[] = [];
  const defaults = new Map<string, unknown>();
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue)
      defaults.set(definition.variable.name.value, valueFromASTUntyped(definition.defaultValue));
  }
  const site = (
    kind: IncrementalSite['kind'],
    directive: DirectiveNode,
    path: readonly string[],
    runs: Runs,
  ) => {
    const label = argument<string | undefined>(directive, 'label', undefined, defaults);
    sites.push({
      kind,
      path,
      label: typeof label === 'string' ? label : undefined,
      enabled: argument(directive, 'if', true, defaults),
      initialCount: kind === 'stream' ? argument(directive, 'initialCount', 0, defaults) : 0,
      runs,
    });
  };
  return {
    sites,
    field({ node, path, runs }) {
      const stream = node.directives?.find((directive) => directive.name.value === 'stream');
      if (stream) site('stream', stream, [...path, node.alias?.value ?? node.name.value], runs);
    },
    fragment({ selection, path, runs }) {
      const defer = selection.directives?.find((directive) => directive.name.value === 'defer');
      if (defer) site('defer', defer, path, runs);
    },
  };
}
