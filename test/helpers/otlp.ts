import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as a collector received it (OTLP/JSON, flattened). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code?: number; message?: string };
  links: { traceId: string; spanId: string }[];
  /** The resource's attributes (service.name, …). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to: `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Every span received so far. */
  readonly spans: ReceivedSpan[];
  /** How many export requests came (any path). */
  readonly requests: number;
  /** Resolves with the spans received once `predicate` holds for them; fails after `timeoutMs`. */
  waitFor(
    predicate: (spans: ReceivedSpan[]) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

function decodedValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decodedValue);
  return undefined;
}

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, decodedValue(value)]));

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        status?: { code?: number; message?: string };
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

/**
 * A collector for tests: receives OTLP/HTTP with JSON bodies (OTEL_EXPORTER_OTLP_PROTOCOL=http/json)
 * on loopback and keeps the spans.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const waiters = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests++;
      if (request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
        for (const resourceSpans of body.resourceSpans ?? []) {
          const resource = attributesOf(resourceSpans.resource?.attributes);
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                status: span.status ?? {},
                links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
                resource,
              });
            }
          }
        }
        for (const wake of waiters) wake();
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    get requests() {
      return requests;
    },
    waitFor(predicate, timeoutMs = 10_000) {
      if (predicate(spans)) return Promise.resolve(spans);
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          cleanup();
          resolve(spans);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`the expected spans did not arrive; received:\n${describe(spans)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The spans one per line, for failure messages. */
export function describe(spans: readonly ReceivedSpan[]): string {
  return spans
    .map((span) => `${span.traceId} ${span.spanId} <- ${span.parentSpanId ?? '-'} ${span.name}`)
    .join('\n');
}
