import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import type { Viewer } from '../domain/context.js';
import { errorCodeOf } from '../errors/classify.js';
import { planOf } from '../graphql/plan/index.js';
import { operationOf } from '../graphql/plan/operation.js';
import type { Metrics } from './metrics.js';
import { SeriesCounter, SeriesHistogram } from './series.js';

/** The part of the GraphQL context the metrics read: the caller. */
interface CallerContext {
  viewer?: Viewer;
  request?: Request;
}

const phaseCodes: Record<string, string> = {
  parse: 'GRAPHQL_PARSE_FAILED',
  validate: 'GRAPHQL_VALIDATION_FAILED',
};

/**
 * GraphQL operation metrics, in the app's registry, in one plugin with one hook per phase. Labels are
 * bounded: operation names through `Metrics.operationName`, errors by contract code rather than
 * by path, and no URL label (its query string would make every GET a new series). Deprecated
 * fields and arguments in a document count into `petstore_deprecated_calls_total` per client.
 */
export function graphqlMetrics(metrics: Metrics): Plugin<CallerContext> {
  return operationMetrics(metrics, deprecatedCalls(metrics));
}

/** What the operation metrics keep of an operation while it runs: its labels and start. */
interface Timing {
  started: number;
  type: string;
  name: string;
}

/** An operation's timing, on its context. */
const timings = new WeakMap<object, Timing>();

/**
 * The operations (`graphql_envelop_request`, and their time from parse to the end of execution,
 * `graphql_envelop_request_duration`) by type and bounded name, and their errors by phase and
 * contract code (`graphql_envelop_error_result`): the series Yoga's Prometheus plugin wrote, made
 * here with the hooks of the phases they count (the plugin wrapped every phase of every request).
 */
function operationMetrics(
  metrics: Metrics,
  countDeprecated: (args: DeprecatedCallArgs) => void,
): Plugin<CallerContext> {
  const { registry } = metrics;
  const requests = new SeriesCounter({
    name: 'graphql_envelop_request',
    help: 'GraphQL operations executed',
    labelNames: ['operationType', 'operationName'],
    registers: [registry],
  });
  const durations = new SeriesHistogram({
    name: 'graphql_envelop_request_duration',
    help: 'Time to run a GraphQL operation, from parse to the end of execution, in seconds',
    labelNames: ['operationType', 'operationName'],
    registers: [registry],
  });
  const errors = new SeriesCounter({
    name: 'graphql_envelop_error_result',
    help: 'GraphQL errors by phase and contract code',
    labelNames: ['operationType', 'operationName', 'phase', 'code'],
    registers: [registry],
  });
  const countErrors = (timing: Timing, phase: string, failures: readonly unknown[]) => {
    for (const error of failures) {
      const uncoded = !(error instanceof GraphQLError && error.extensions?.code);
      const code = (uncoded && phaseCodes[phase]) || errorCodeOf(error);
      errors.inc({ operationType: timing.type, operationName: timing.name, phase, code });
    }
  };
  /** The operation of a document, as the labels name it (before validation it may have none). */
  const timingOf = (context: object, document: DocumentNode | undefined, name?: string | null) => {
    let timing = timings.get(context);
    if (!timing) {
      timing = { started: performance.now(), type: 'unknown', name: 'Anonymous' };
      timings.set(context, timing);
    }
    const operation = document && operationOf(document, name);
    if (operation) {
      timing.type = operation.operation;
      timing.name = metrics.operationName(operation.name?.value);
    }
    return timing;
  };
  const done =
    (timing: Timing, phase: 'execute' | 'subscribe') =>
    ({ result }: { result: ExecutionResult }) => {
      if (result.errors?.length) countErrors(timing, phase, result.errors);
    };
  return {
    onParse: ({ context }) => {
      timingOf(context, undefined);
      return ({ result, context: parsed }) => {
        if (result instanceof Error) countErrors(timingOf(parsed, undefined), 'parse', [result]);
      };
    },
    onValidate:
      ({ context, params }) =>
      ({ result }) => {
        if (result.length > 0)
          countErrors(timingOf(context, params.documentAST), 'validate', result);
      },
    onExecute({ args }) {
      countDeprecated(args);
      const timing = timingOf(args.contextValue as object, args.document, args.operationName);
      const labels = { operationType: timing.type, operationName: timing.name };
      requests.inc(labels);
      return {
        onExecuteDone(payload) {
          durations.observe(labels, (performance.now() - timing.started) / 1000);
          handleStreamOrSingleExecutionResult(payload, done(timing, 'execute'));
        },
      };
    },
    onSubscribe({ args }) {
      countDeprecated(args);
      const timing = timingOf(args.contextValue as object, args.document, args.operationName);
      requests.inc({ operationType: timing.type, operationName: timing.name });
      return {
        onSubscribeResult: (payload) =>
          handleStreamOrSingleExecutionResult(payload, done(timing, 'subscribe')),
      };
    },
  };
}

interface DeprecatedCallArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null | undefined;
  contextValue: CallerContext;
}

/** Counts every operation that uses deprecated fields or arguments (its plan's), per field and client. */
function deprecatedCalls(metrics: Metrics): (args: DeprecatedCallArgs) => void {
  return (args) => {
    const uses = planOf(args.schema, args.document, args.operationName)?.deprecated ?? [];
    if (uses.length === 0) return;
    const { viewer, request } = args.contextValue;
    const client = metrics.client(viewer?.subject, request?.headers.get('user-agent'));
    for (const operation of uses)
      metrics.deprecatedCalls.inc({ api: 'graphql', operation, client });
  };
}
