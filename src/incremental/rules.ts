import {
  type ASTVisitor,
  GraphQLError,
  getNullableType,
  isListType,
  Kind,
  type OperationDefinitionNode,
  specifiedRules,
  type ValidationContext,
  type ValidationRule,
  type validate,
} from 'graphql';

const incremental = new Set(['defer', 'stream']);

/**
 * What graphql-js 17 checks of `@defer` and `@stream` and graphql 16 does not: both only in
 * queries (a mutation's or a subscription's answer is not delivered in parts), `@stream` only on
 * a list field, and each `label` a literal string used once in the document.
 */
const IncrementalDirectivesRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  const labels = new Set<string>();
  /** The named fragments that use either directive. */
  const usingFragments = new Set<string>();
  const operations: OperationDefinitionNode[] = [];
  let inFragment: string | undefined;
  let inOperation: OperationDefinitionNode | undefined;
  const refuse = (message: string, node: import('graphql').ASTNode) =>
    context.reportError(new GraphQLError(message, { nodes: node }));
  const notInQuery = (node: import('graphql').ASTNode, kind: string) =>
    refuse(`@defer and @stream run only in queries, not in a ${kind}`, node);
  return {
    OperationDefinition: {
      enter(node) {
        inOperation = node;
        operations.push(node);
      },
      leave() {
        inOperation = undefined;
      },
    },
    FragmentDefinition: {
      enter(node) {
        inFragment = node.name.value;
      },
      leave() {
        inFragment = undefined;
      },
    },
    Directive(node) {
      const name = node.name.value;
      if (!incremental.has(name)) return;
      if (inFragment) usingFragments.add(inFragment);
      if (inOperation && inOperation.operation !== 'query') notInQuery(node, inOperation.operation);
      if (name === 'stream') {
        const type = context.getType();
        if (type && !isListType(getNullableType(type)))
          refuse('@stream applies only to a list field', node);
      }
      const label = node.arguments?.find((arg) => arg.name.value === 'label')?.value;
      if (!label) return;
      if (label.kind !== Kind.STRING) {
        refuse(`The label of @${name} must be a literal string`, label);
        return;
      }
      if (labels.has(label.value))
        refuse(`The label "${label.value}" is used more than once; each must be unique`, label);
      labels.add(label.value);
    },
    Document: {
      leave() {
        if (usingFragments.size === 0) return;
        for (const operation of operations) {
          if (operation.operation === 'query') continue;
          const used = context
            .getRecursivelyReferencedFragments(operation)
            .some((fragment) => usingFragments.has(fragment.name.value));
          if (used) notInQuery(operation, operation.operation);
        }
      },
    },
  };
};

/** A validation with the incremental rule beside the rules it is given. */
export function withIncrementalRules(validation: typeof validate): typeof validate {
  return (schema, document, rules, ...rest) =>
    validation(
      schema,
      document,
      [...(rules ?? specifiedRules), IncrementalDirectivesRule],
      ...rest,
    );
}
