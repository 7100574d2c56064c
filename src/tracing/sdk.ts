import { enableTracing, type Failure } from './hooks.js';

/** The tracing in progress: `shutdown` sends the spans still buffered, then stops. */
export interface TracingHandle {
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** The contract code and status for anything thrown (the domain's classifier). */
  classify: (error: unknown) => Failure;
  /** Where the SDK's own problems (an unreachable collector) are reported. */
  warn: (message: string) => void;
}

/**
 * Starts OpenTelemetry's Node SDK, configured by the standard `OTEL_*` variables (endpoint,
 * protocol, headers, service name, resource attributes, sampler, batch sizes), with the
 * instrumentation of Prisma (one span per SQL statement); the server spans are the app's own
 * (./http.ts). Traces only: the app's metrics stay on /metrics and its logs on
 * stdout. Loaded by a dynamic import, and only when an OTLP endpoint is configured.
 */
export async function startTracing(options: TracingOptions): Promise<TracingHandle> {
  const [api, { NodeSDK }, { PrismaInstrumentation }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-node'),
    import('@prisma/instrumentation'),
  ]);
  api.diag.setLogger(
    {
      error: options.warn,
      warn: options.warn,
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    api.DiagLogLevel.WARN,
  );
  const named =
    process.env.OTEL_SERVICE_NAME ||
    /(^|,)\s*service\.name=/.test(process.env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: 'petstore-gateway' }),
    // Traces only (the Node SDK would also export metrics and logs by default).
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Prisma's own spans for each statement (`prisma:client:db_query`, its text without values)
      // and each client call; not its serialization and query planning steps.
      new PrismaInstrumentation({
        ignoreSpanTypes: ['prisma:client:serialize', 'prisma:client:compile'],
      }),
    ],
  });
  sdk.start();
  enableTracing({
    api,
    tracer: api.trace.getTracer('petstore-gateway'),
    classify: options.classify,
  });
  return { shutdown: () => sdk.shutdown() };
}
