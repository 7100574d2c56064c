import type { Context as OtelContext, Span } from '@opentelemetry/api';
import { GraphQLError, getOperationAST, Kind } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { activeTracing, type EventSlot, type Failure, markFailed, withEventSlot } from './hooks.js';

/** One GraphQL operation's span, by the operation's context object (the same in every phase). */
interface Operation {
  readonly span: Span;
  readonly context: OtelContext;
}

const operations = new WeakMap<object, Operation>();

/** Notes an operation's cost (the cost limit computes it) on its span. */
export function noteOperationCost(context: object, cost: number): void {
  operations.get(context)?.span.setAttribute('graphql.operation.cost', cost);
}

/** A GraphQL error's contract code and status (a masked error, or a refusal made with both). */
function failureOf(error: GraphQLError): Failure {
  const { code, status } = error.extensions ?? {};
  return { code: String(code ?? 'INTERNAL'), status: Number(status ?? 500) };
}

/**
 * The GraphQL edge's spans: one per operation (named `query PetById`, with the semantic
 * conventions' `graphql.operation.name` and `.type`, and the cost), with parse, validate and
 * execute (or subscribe) as its children; never one per resolver. What the operation's execution
 * does (domain operations, SQL statements) nests under its execute span. A failed operation
 * carries its contract codes. Added to Yoga only when tracing is on.
 *
 * envelop's own OpenTelemetry plugin was not a fit: its span starts at execution (parse and
 * validation, where most refusals happen, fall outside it), it records failures as their messages,
 * and it brings a second trace SDK of its own.
 */
export function graphqlTracing(): Plugin {
  const tracing = activeTracing();
  if (!tracing) return {};
  const { api, tracer, classify } = tracing;

  /** Runs a phase of `context`'s operation in a child span of its own (if it is traced). */
  function phase<T>(name: string, context: object, run: () => T): T {
    const operation = operations.get(context);
    if (!operation) return run();
    const span = tracer.startSpan(name, {}, operation.context);
    const ended = () => span.end();
    try {
      const result = api.context.with(api.trace.setSpan(operation.context, span), run);
      if (result instanceof Promise) return result.finally(ended) as T;
      ended();
      return result;
    } catch (error) {
      ended();
      throw error;
    }
  }

  return {
    instrumentation: {
      // Each operation (a batch has several; over a WebSocket, GraphQLEdge.run applies this too):
      // its span is the active one for everything the operation does.
      operation({ context }, wrapped) {
        // In a request that is not sampled nothing is recorded: the operation runs as it would
        // without tracing, and what it does follows the request's decision.
        const parent = api.trace.getActiveSpan();
        if (parent && !parent.isRecording()) return wrapped();
        const span = tracer.startSpan('GraphQL operation');
        const operation = { span, context: api.trace.setSpan(api.context.active(), span) };
        operations.set(context, operation);
        return api.context.with(operation.context, async () => {
          try {
            await wrapped();
          } catch (error) {
            // Refused before execution, outside Yoga's error handling (by a check in onParams).
            markFailed(span, error instanceof GraphQLError ? failureOf(error) : classify(error));
            throw error;
          } finally {
            operations.delete(context);
            span.end();
          }
        });
      },
      parse: ({ context }, wrapped) => phase('graphql.parse', context, wrapped),
      validate: ({ context }, wrapped) => phase('graphql.validate', context, wrapped),
      execute: ({ context }, wrapped) => phase('graphql.execute', context, wrapped),
      subscribe: ({ context }, wrapped) => phase('graphql.subscribe', context, wrapped),
    },
    onParse({ context }) {
      return ({ result }) => {
        if (!result || result instanceof Error || result.kind !== Kind.DOCUMENT) return;
        const operationName = (context as { params?: { operationName?: string | null } }).params
          ?.operationName;
        const definition = getOperationAST(result, operationName);
        const span = operations.get(context)?.span;
        if (!definition || !span) return;
        const name = definition.name?.value;
        span.updateName(name ? `${definition.operation} ${name}` : definition.operation);
        span.setAttribute('graphql.operation.type', definition.operation);
        if (name) span.setAttribute('graphql.operation.name', name);
      };
    },
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn(async (args) => {
        const result = await subscribeFn(args);
        return isAsyncIterable(result) ? inEventSpans(result) : result;
      });
    },
    onExecutionResult({ result, context }) {
      const operation = operations.get(context);
      if (!operation) return;
      if (!result || Symbol.asyncIterator in result) return;
      // The errors are masked by now: their codes are final.
      const failures = (result.errors ?? []).map(failureOf);
      const first = failures[0];
      if (!first) return;
      markFailed(operation.span, first);
      const codes = [...new Set(failures.map((failure) => failure.code))];
      if (codes.length > 1) operation.span.setAttribute('petstore.error.codes', codes);
    },
  };
}

/**
 * A subscription's stream of results, each asked for with an `EventSlot` in the context: the
 * event's span (started by the source stream when an event arrives) then also holds the reads of
 * the event's fields. A span ends when the next event is asked for, or when the stream ends.
 */
function inEventSpans<T>(results: AsyncIterable<T>): AsyncIterableIterator<T> {
  const iterator = results[Symbol.asyncIterator]();
  const slot: EventSlot = { current: undefined };
  const endEvent = () => {
    slot.current?.end();
    slot.current = undefined;
  };
  const wrapped: AsyncIterableIterator<T> = {
    next() {
      endEvent();
      return withEventSlot(slot, () => iterator.next());
    },
    async return(value?: unknown) {
      endEvent();
      return (await iterator.return?.(value)) ?? { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      endEvent();
      if (iterator.throw) return iterator.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return wrapped;
    },
  };
  return wrapped;
}
