import type * as Otel from '@opentelemetry/api';

/**
 * What the rest of the code calls to trace. Until `enableTracing` runs (./sdk.ts, only when an
 * OTLP endpoint is configured), every hook here is a branch on `undefined` and nothing else: no
 * OpenTelemetry module is loaded, no span, context or id is made. This file imports the API's
 * types only, so that importing it (the domain and db layers do) loads nothing.
 */
export interface Tracing {
  readonly api: typeof Otel;
  readonly tracer: Otel.Tracer;
  /** The contract code and HTTP status for anything thrown (the domain's one classifier). */
  readonly classify: (error: unknown) => Failure;
}

/** A failure as the contract names it. */
export interface Failure {
  readonly code: string;
  readonly status: number;
}

let tracing: Tracing | undefined;
/** The context key of a subscription's `EventSlot` (made with the API, once it is loaded). */
let eventSlotKey: symbol | undefined;

/** Turns the hooks on: called once, by the SDK loader, after the SDK has started. */
export function enableTracing(active: Tracing): void {
  tracing = active;
  eventSlotKey = active.api.createContextKey('petstore subscription event');
}

/** Whether traces are being made (the app adds its tracing middleware and plugins only then). */
export const tracingEnabled = (): boolean => tracing !== undefined;

/** The loaded API and tracer, for the other files of this folder; undefined when off. */
export const activeTracing = (): Tracing | undefined => tracing;

/** The attribute holding a failure's contract code: the semantic conventions' `error.type`. */
export const ERROR_TYPE = 'error.type';

/** Marks `span` failed with its contract code (and the status the caller sees). */
export function markFailed(span: Otel.Span, failure: Failure): void {
  if (!tracing) return;
  span.setAttribute(ERROR_TYPE, failure.code);
  span.setAttribute('petstore.error.status', failure.status);
  span.setStatus({ code: tracing.api.SpanStatusCode.ERROR, message: failure.code });
}

/**
 * Records a failure answered by the app (an error response built before or by an edge) on the
 * span in progress: the REST route's, or the server span when no edge ran.
 */
export function recordFailure(failure: Failure): void {
  if (!tracing) return;
  const span = tracing.api.trace.getActiveSpan();
  if (span) markFailed(span, failure);
}

/** Adds attributes to the span in progress (the server span, in the app's middleware). */
export function annotateSpan(attributes: Otel.Attributes): void {
  tracing?.api.trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * Runs `fn` in a span named `name` (a child of the span in progress) and ends it when `fn` settles;
 * a throw marks the span failed with the contract code of what was thrown. Without tracing, or in
 * a request that is not sampled, it is `fn()`. A `client` span is a call to another service (a
 * SQL statement).
 */
export function inSpan<T>(
  name: string,
  attributes: Otel.Attributes,
  fn: () => Promise<T> | T,
  kind?: 'client',
): Promise<T> | T {
  if (!tracing) return fn();
  const { api, tracer, classify } = tracing;
  // Inside a request that is not sampled nothing is recorded: no span to make.
  if (api.trace.getActiveSpan()?.isRecording() === false) return fn();
  const options = kind ? { attributes, kind: api.SpanKind.CLIENT } : { attributes };
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await fn();
    } catch (error) {
      markFailed(span, classify(error));
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A domain operation that shows as a span of its own when tracing is on (`domain <name>`). The
 * wrapper costs one branch when it is off.
 */
export function domainOperation<Args extends unknown[], R>(
  name: string,
  fn: (...args: Args) => Promise<R>,
): (...args: Args) => Promise<R> {
  const spanName = `domain ${name}`;
  const attributes = { 'petstore.domain.operation': name };
  return (...args) =>
    tracing ? (inSpan(spanName, attributes, () => fn(...args)) as Promise<R>) : fn(...args);
}

/**
 * The log fields naming the trace of the span in progress (pino's `mixin`): `trace_id` and
 * `span_id`, as OpenTelemetry's log data model spells them.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = tracing?.api.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** A span context as a W3C `traceparent` value (`00-<trace id>-<span id>-<flags>`). */
export function traceparentOf(context: Otel.SpanContext): string {
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a `traceparent` value names, or undefined for anything else. */
export function spanContextOf(traceparent: string): Otel.SpanContext | undefined {
  const match = traceparentPattern.exec(traceparent);
  if (!match) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}

/**
 * The span in progress as a `traceparent`, to carry beside a write's changes: the events the
 * write causes (here or on another replica) link to it. Undefined when tracing is off.
 */
export function currentTraceparent(): string | undefined {
  const span = tracing?.api.trace.getActiveSpan();
  if (!span) return undefined;
  const context = span.spanContext();
  return tracing?.api.isSpanContextValid(context) ? traceparentOf(context) : undefined;
}

/**
 * Where a subscription keeps the span of the event it is delivering. The event's span starts in
 * the source stream (src/graphql/kit/change-stream.ts), but its fields are resolved afterwards, by the
 * GraphQL executor, in the context of whoever asked for the next event; that context holds the slot
 * and a span standing for whatever event the slot holds, so that the reads of those fields land in
 * the event's trace. The event's span ends when the next event is asked for.
 */
export interface EventSlot {
  current: Otel.Span | undefined;
}

/** A span standing for the one an `EventSlot` holds (none: an invalid, unsampled span). */
class SlotSpan implements Otel.Span {
  constructor(
    private readonly slot: EventSlot,
    private readonly invalid: Otel.SpanContext,
  ) {}
  spanContext() {
    return this.slot.current?.spanContext() ?? this.invalid;
  }
  setAttribute(key: string, value: Otel.AttributeValue) {
    this.slot.current?.setAttribute(key, value);
    return this;
  }
  setAttributes(attributes: Otel.Attributes) {
    this.slot.current?.setAttributes(attributes);
    return this;
  }
  addEvent(name: string, attributes?: Otel.Attributes | Otel.TimeInput, time?: Otel.TimeInput) {
    this.slot.current?.addEvent(name, attributes, time);
    return this;
  }
  addLink(link: Otel.Link) {
    this.slot.current?.addLink(link);
    return this;
  }
  addLinks(links: Otel.Link[]) {
    this.slot.current?.addLinks(links);
    return this;
  }
  setStatus(status: Otel.SpanStatus) {
    this.slot.current?.setStatus(status);
    return this;
  }
  updateName(name: string) {
    this.slot.current?.updateName(name);
    return this;
  }
  end() {}
  isRecording() {
    return this.slot.current?.isRecording() ?? false;
  }
  recordException(exception: Otel.Exception, time?: Otel.TimeInput) {
    this.slot.current?.recordException(exception, time);
  }
}

/** Runs `fn` (asking a subscription for its next event) with `slot` in the context. */
export function withEventSlot<T>(slot: EventSlot, fn: () => T): T {
  if (!tracing || !eventSlotKey) return fn();
  const { api } = tracing;
  const active = api.context.active().setValue(eventSlotKey, slot);
  const context = api.trace.setSpan(active, new SlotSpan(slot, api.INVALID_SPAN_CONTEXT));
  return api.context.with(context, fn);
}

/**
 * Runs `fn` in a new trace's root span, linked to the span `cause` names (the write that made the
 * event): a subscription event starts its own trace, so that a subscription open for hours is not
 * one endless trace, and the link leads to the write. In a subscription's `EventSlot` the span
 * stays open (the slot's owner ends it); elsewhere it ends with `fn`. Without tracing it is `fn()`.
 */
export async function inLinkedSpan<T>(
  name: string,
  cause: string | undefined,
  attributes: Otel.Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracing) return fn();
  const { api, tracer, classify } = tracing;
  const slot = eventSlotKey
    ? (api.context.active().getValue(eventSlotKey) as EventSlot | undefined)
    : undefined;
  const linked = cause === undefined ? undefined : spanContextOf(cause);
  const span = tracer.startSpan(
    name,
    { root: true, attributes, links: linked ? [{ context: linked }] : [] },
    api.ROOT_CONTEXT,
  );
  if (slot) {
    slot.current?.end();
    slot.current = span;
  }
  try {
    return await api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, span), fn);
  } catch (error) {
    markFailed(span, classify(error));
    throw error;
  } finally {
    if (!slot) span.end();
  }
}
