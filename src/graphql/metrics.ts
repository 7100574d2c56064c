import {
  createCounter,
  createHistogram,
  type FillLabelsFnParams,
  usePrometheus,
} from '@graphql-yoga/plugin-prometheus';
import {
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Viewer } from '../domain/context.js';
import type { Metrics } from '../observability/metrics.js';
import { errorCodeOf } from './errors.js';

/** The part of the GraphQL context the metrics read: the caller. */
interface CallerContext {
  viewer?: Viewer;
  request?: Request;
}

const phaseCodes: Record<string, string> = {
  parse: 'GRAPHQL_PARSE_FAILED',
  validate: 'GRAPHQL_VALIDATION_FAILED',
};

function errorCode(params: FillLabelsFnParams): string {
  const { error, errorPhase } = params;
  // A parse or validation error that no plugin has coded yet (a compiled query's errors may have
  // no extensions at all).
  const uncoded = !(error instanceof GraphQLError && error.extensions?.code);
  return (uncoded && phaseCodes[errorPhase ?? '']) || errorCodeOf(error);
}

/**
 * GraphQL operation metrics from the Yoga Prometheus plugin, in the app's registry. Labels are
 * bounded: operation names through `Metrics.operationName`, errors by contract code rather than
 * by path, and no URL label (its query string would make every GET a new series). Deprecated
 * fields and arguments in a document count into `petstore_deprecated_calls_total` per client.
 */
export function graphqlMetrics(metrics: Metrics): Plugin {
  return {
    onPluginInit({ addPlugin }) {
      addPlugin(operationMetrics(metrics));
      addPlugin(deprecatedCalls(metrics));
    },
  };
}

function operationMetrics(metrics: Metrics): Plugin {
  const { registry } = metrics;
  const operation = (params: FillLabelsFnParams) => ({
    operationType: params.operationType ?? 'unknown',
    operationName: metrics.operationName(params.operationName),
  });
  return usePrometheus({
    registry,
    endpoint: false,
    metrics: {
      graphql_envelop_request: createCounter({
        registry,
        counter: {
          name: 'graphql_envelop_request',
          help: 'GraphQL operations executed',
          labelNames: ['operationType', 'operationName'],
        },
        fillLabelsFn: operation,
      }),
      graphql_envelop_request_duration: createHistogram({
        registry,
        histogram: {
          name: 'graphql_envelop_request_duration',
          help: 'Time to run a GraphQL operation, from parse to the end of execution, in seconds',
          labelNames: ['operationType', 'operationName'],
        },
        fillLabelsFn: operation,
      }),
      graphql_envelop_error_result: createCounter({
        registry,
        counter: {
          name: 'graphql_envelop_error_result',
          help: 'GraphQL errors by phase and contract code',
          labelNames: ['operationType', 'operationName', 'phase', 'code'],
        },
        fillLabelsFn: (params) => ({
          ...operation(params),
          phase: params.errorPhase ?? 'execute',
          code: errorCode(params),
        }),
      }),
      // Counted by deprecatedCalls below, which walks each document once, not once per request.
      graphql_envelop_deprecated_field: false,
      graphql_envelop_request_time_summary: false,
      graphql_envelop_phase_parse: false,
      graphql_envelop_phase_validate: false,
      graphql_envelop_phase_context: false,
      graphql_envelop_phase_execute: false,
      graphql_envelop_phase_subscribe: false,
      graphql_envelop_schema_change: false,
      graphql_yoga_http_duration: false,
    },
  });
}

/**
 * `Type.field` for each deprecated field a document selects and `field.argument` for each
 * deprecated argument it passes, found once per document (Yoga's parse cache hands the same
 * document object for the same text).
 */
function deprecatedUses() {
  const found = new WeakMap<DocumentNode, string[]>();
  return (schema: GraphQLSchema, document: DocumentNode): string[] => {
    let uses = found.get(document);
    if (!uses) {
      const typeInfo = new TypeInfo(schema);
      const names: string[] = [];
      visit(
        document,
        visitWithTypeInfo(typeInfo, {
          Field() {
            const field = typeInfo.getFieldDef();
            if (field?.deprecationReason != null) {
              names.push(`${typeInfo.getParentType()?.name}.${field.name}`);
            }
          },
          Argument() {
            const argument = typeInfo.getArgument();
            const field = typeInfo.getFieldDef();
            if (field && argument?.deprecationReason != null) {
              names.push(`${field.name}.${argument.name}`);
            }
          },
        }),
      );
      uses = names;
      found.set(document, uses);
    }
    return uses;
  };
}

/** Counts every operation that uses deprecated fields or arguments, per field and client. */
function deprecatedCalls(metrics: Metrics): Plugin<CallerContext> {
  const usesOf = deprecatedUses();
  const count = (args: {
    schema: GraphQLSchema;
    document: DocumentNode;
    contextValue: CallerContext;
  }) => {
    const uses = usesOf(args.schema, args.document);
    if (uses.length === 0) return;
    const { viewer, request } = args.contextValue;
    const client = metrics.client(viewer?.subject, request?.headers.get('user-agent'));
    for (const operation of uses)
      metrics.deprecatedCalls.inc({ api: 'graphql', operation, client });
  };
  return {
    onExecute: ({ args }) => count(args),
    onSubscribe: ({ args }) => count(args),
  };
}
