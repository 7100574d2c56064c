import {
  createCounter,
  createHistogram,
  type FillLabelsFnParams,
  usePrometheus,
} from '@graphql-yoga/plugin-prometheus';
import { GraphQLError } from 'graphql';
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
      graphql_envelop_deprecated_field: {
        counter: metrics.deprecatedCalls,
        phases: ['parse'],
        fillLabelsFn: (params, context: CallerContext) => ({
          api: 'graphql',
          operation: `${params.deprecationInfo?.typeName}.${params.deprecationInfo?.fieldName}`,
          client: metrics.client(
            context.viewer?.subject,
            context.request?.headers.get('user-agent'),
          ),
        }),
      },
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
