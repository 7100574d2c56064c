import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  type GraphQLError,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { EventDelivery } from '../changes/delivery.js';
import { type ChangeEvent, cursorOf } from '../changes/event.js';
import { DomainError } from '../errors/catalogue.js';
import {
  type ChangeSelection,
  deliverEvent,
  type LiveStream,
  liveStreamOf,
  type SubscriptionLife,
  tokenExpired,
} from '../graphql/kit/change-stream.js';
import type { GraphQLContext } from '../graphql/kit/context.js';
import { planOf } from '../graphql/plan/index.js';
import { operationOf } from '../graphql/plan/operation.js';
import type { Logger } from '../logger.js';
import { type EventSlot, withEventSlot } from '../tracing/hooks.js';
import { operationWarnings, withWarnings } from '../warnings/graphql.js';
import { EventBytes } from './event-bytes.js';

/** How long an event's result stays shared once computed: one fan-out takes far less. */
const SHARED_MS = 1000;
/** Events a group takes from the delivery at a time. */
const BATCH = 100;
/** How long a group waits before reading again after the outbox could not be read. */
const RETRY_MS = 1000;

/**
 * Who gets the same bytes for an event: the same operation and variables (of one document), for a
 * caller with the same scopes among those the operation's fields declare (and, when it declares
 * any, the same answer to "has a token": without one a scoped field says UNAUTHENTICATED, with one
 * FORBIDDEN). No field depends on more of the caller than that; a document that declares no scope
 * is shared by every caller.
 */
function sharingKey(args: ExecutionArgs, ctx: GraphQLContext): string {
  const declared = planOf(args.schema, args.document, args.operationName)?.scopes;
  let scopes = '';
  if (declared && declared.size > 0) {
    const { viewer } = ctx.domain;
    const held = [...viewer.scopes].filter((scope) => declared.has(scope)).sort();
    scopes = `${viewer.authenticated} ${held.join(' ')}`;
  }
  // The operation itself, whether the request named it or not.
  const operation = operationOf(args.document, args.operationName)?.name?.value ?? '';
  return `${operation}\n${JSON.stringify(args.variableValues ?? {})}\n${scopes}`;
}

/** A subscription as it started: its execution's arguments, its context and its stream. */
interface Subscription {
  args: ExecutionArgs;
  ctx: GraphQLContext;
  live: LiveStream;
}

/** Where a member's events go once it is live: written by its group, in the transport's form. */
export interface MemberSink {
  /** Writes one event (`first`: the member's first event, which carries the warnings). */
  send(event: EventBytes, first: boolean): void;
  /**
   * The member left its group: its stream ended, its token expired, or the group stopped. A
   * member that kept its own stream reads it on; a detached one (`Member.detach`) has no stream
   * left to read and ends its connection (`why`).
   */
  interrupted(why: 'ended' | 'expired' | 'failed'): void;
}

export interface FanOutOptions {
  events: EventDelivery;
  /** An execution error as the edge sends it (masked and logged): src/graphql/errors.ts. */
  maskError(error: unknown): GraphQLError;
  /** Counts each execution of a subscription's document on an event (one per group and event). */
  countExecution(): void;
  /** Told the number of groups whenever it changes. */
  countGroups(groups: number): void;
  logger: Logger;
}

/**
 * The fan-out of subscription events: subscriptions that would receive the same bytes (one
 * document, operation and variables, the same scopes where scopes change the answer:
 * `sharingKey`) form a group, and per event each group reads the outbox once, executes its
 * document once, serializes the result once and writes the same bytes to every member, over SSE
 * and graphql-ws alike. A member holds its transport's sink, its place (the last event it has
 * had) and what keeps its subscription open (`SubscriptionLife`, src/graphql/kit/change-stream.ts:
 * the per-client bound, the token's expiry, the end). A member starts by reading its own stream
 * (its first events through Yoga's whole pipeline, as a subscription without a group would:
 * resuming from a cursor, catching up) and joins its group as soon as its own stream has caught up
 * with the group's place; the transport then lets go of that stream (`Member.detach`), and ends
 * the connection when the subscription ends, its token expires or its group stops.
 *
 * Registered as a Yoga plugin first: plugins that wrap the subscribe function (tracing) wrap this
 * one, and every policy of the subscribe phase runs for every member.
 */
export class FanOut {
  readonly #groups = new WeakMap<DocumentNode, Map<string, Group>>();
  readonly #members = new WeakMap<object, Member>();
  /** Results of one event shared by the subscriptions that read their own stream. */
  readonly #shared = new WeakMap<DocumentNode, Map<string, Promise<ExecutionResult>>>();
  #groupCount = 0;

  constructor(readonly options: FanOutOptions) {}

  /** Groups running now. */
  get groups(): number {
    return this.#groupCount;
  }

  /** The member a subscription's context made (src/live/sse.ts, src/live/websocket.ts). */
  memberOf(context: object): Member | undefined {
    return this.#members.get(context);
  }

  plugin(): Plugin<GraphQLContext> {
    return {
      onSubscribe: ({ setSubscribeFn }) => {
        setSubscribeFn(async (args) => {
          const source = await createSourceEventStream(args);
          if (!isAsyncIterable(source)) return source;
          const ctx = args.contextValue as GraphQLContext;
          const live = liveStreamOf(source);
          if (live) this.#members.set(ctx, new Member(this, args, ctx, live));
          return this.#ownResults(args, ctx, source[Symbol.asyncIterator]());
        });
      },
    };
  }

  /** The group a subscription belongs in, made when it is the first (its place is the first's). */
  groupFor({ args, ctx, live }: Subscription): Group {
    let byKey = this.#groups.get(args.document);
    if (!byKey) {
      byKey = new Map();
      this.#groups.set(args.document, byKey);
    }
    const key = sharingKey(args, ctx);
    let group = byKey.get(key);
    if (!group) {
      const groups = byKey;
      group = new Group(this, args, ctx, live, () => {
        groups.delete(key);
        this.#groupCount--;
        this.options.countGroups(this.#groupCount);
      });
      byKey.set(key, group);
      this.#groupCount++;
      this.options.countGroups(this.#groupCount);
    }
    return group;
  }

  /**
   * An event's result for `ctx`, computed once for every subscription that shares it (the group,
   * and the members still reading their own stream): kept per event cursor and sharing key for a
   * second.
   */
  resultOf(
    args: ExecutionArgs,
    ctx: GraphQLContext,
    cursor: string,
    value: unknown,
  ): Promise<ExecutionResult> {
    let results = this.#shared.get(args.document);
    if (!results) {
      results = new Map();
      this.#shared.set(args.document, results);
    }
    const key = `${cursor}\n${sharingKey(args, ctx)}`;
    let result = results.get(key);
    if (!result) {
      this.options.countExecution();
      result = Promise.resolve(
        execute({ ...args, contextValue: ctx, rootValue: value }) as Promise<ExecutionResult>,
      );
      results.set(key, result);
      const kept = results;
      const forget = () => setTimeout(() => kept.delete(key), SHARED_MS).unref();
      result.then(forget, forget);
    }
    return result;
  }

  /** GraphQL's own subscription algorithm over a member's stream, with the shared results. */
  #ownResults(
    args: ExecutionArgs,
    ctx: GraphQLContext,
    events: AsyncIterator<unknown>,
  ): AsyncIterableIterator<ExecutionResult> {
    const results: AsyncIterableIterator<ExecutionResult> = {
      next: async () => {
        const next = await events.next();
        if (next.done) return next;
        // Only events carry a cursor: the error that ends a stream is its own.
        const cursor = ctx.eventCursor;
        const value =
          cursor === undefined
            ? await (execute({ ...args, rootValue: next.value }) as Promise<ExecutionResult>)
            : await this.resultOf(args, ctx, cursor, next.value);
        return { done: false, value };
      },
      async return() {
        await events.return?.();
        return { done: true, value: undefined };
      },
      async throw(error) {
        await events.return?.();
        throw error;
      },
      [Symbol.asyncIterator]() {
        return results;
      },
    };
    return results;
  }
}

/** One subscription of a group: see `FanOut`. */
export class Member {
  /** The last event this member has had. */
  after = 0n;
  /** No event yet: the next one carries the warnings. */
  first = true;
  /** Ended or expired: it reads its own stream to the end, never joining again. */
  #interrupted = false;
  #sink: MemberSink | undefined;
  #group: Group | undefined;
  /** The subscription as it started, until the member lets go of its stream (`detach`). */
  #own: Subscription | undefined;
  /** What keeps the subscription open (its end, its token's expiry, its per-client place). */
  readonly #life: SubscriptionLife;

  constructor(
    readonly hub: FanOut,
    args: ExecutionArgs,
    ctx: GraphQLContext,
    live: LiveStream,
  ) {
    this.#own = { args, ctx, live };
    this.#life = live.life;
  }

  /** The transport sent an event of the member's own stream. */
  delivered(): void {
    this.first = false;
  }

  /**
   * Joins the group when the member's own stream has caught up with the group's place (called
   * between two reads of that stream, never during one): true when the group now writes its
   * events to `sink`, false when the member must read its own stream on.
   */
  tryJoin(sink: MemberSink): boolean {
    const own = this.#own;
    if (this.#interrupted || !own) return false;
    const group = this.#group ?? this.hub.groupFor(own);
    this.#group = group;
    const at = own.live.cursor();
    if (at < group.cursor) return false;
    this.after = at;
    this.#sink = sink;
    group.add(this);
    this.#life.onInterrupt(() => this.interrupt());
    // Ended or expired already: interrupted at once, it reads its own stream on.
    return !this.#interrupted;
  }

  /**
   * Called once joined, by a transport that lets go of the subscription's stream (and with it
   * the request's context and Yoga's per-request structures around it): the member keeps only
   * what keeps the subscription open (`SubscriptionLife`) and ends it on `leave`. Its
   * `interrupted` then has no stream to read: see `MemberSink`.
   */
  detach(): void {
    this.#own = undefined;
    this.#life.detach();
  }

  /**
   * The last event of a detached member whose token expired: the error its own stream would
   * have delivered, masked as the edge masks it, with the warnings if it is its first. Its group
   * executes it: a member has the group's document, variables and scopes.
   */
  expiryResult(): Promise<ExecutionResult> {
    const group = this.#group;
    if (!group) throw new Error('a member expires only once it has joined its group');
    return group.expiryResult(this.first);
  }

  /** Writes a group's event, unless the member had it already (it joined after it). */
  send(event: EventBytes, id: bigint): void {
    if (id <= this.after || !this.#sink) return;
    this.after = id;
    const first = this.first;
    this.first = false;
    this.#sink.send(event, first);
  }

  /** Back to its own stream for good (it ended, its token expired, or its group stopped). */
  interrupt(failed = false): void {
    this.#interrupted = true;
    this.#group?.remove(this);
    const sink = this.#sink;
    this.#sink = undefined;
    sink?.interrupted(failed ? 'failed' : this.#life.expired() ? 'expired' : 'ended');
  }

  /** The transport's connection is gone: the member leaves its group (and ends, if detached). */
  leave(): void {
    this.#interrupted = true;
    this.#group?.remove(this);
    this.#sink = undefined;
    if (this.#life.detached) this.#life.end();
  }
}

/** The members sharing each event's execution, and the one reader of their events. */
export class Group {
  readonly #members = new Set<Member>();
  /** The last event the group has written (or found not selected). */
  cursor: bigint;
  readonly #warnings;
  readonly #selection: ChangeSelection<unknown, unknown>;
  #running = false;
  #wake: (() => void) | undefined;
  readonly #stopWatching: () => void;

  constructor(
    private readonly hub: FanOut,
    private readonly args: ExecutionArgs,
    private readonly ctx: GraphQLContext,
    live: LiveStream,
    private readonly forget: () => void,
  ) {
    this.cursor = live.cursor();
    this.#selection = live.selection;
    this.#warnings = operationWarnings(args);
    this.#stopWatching = hub.options.events.watch(() => this.#notify());
  }

  /**
   * The error a member's own stream would deliver at its token's expiry, masked as the edge masks
   * it, with the warnings if it is the member's `first` event.
   */
  async expiryResult(first: boolean): Promise<ExecutionResult> {
    const { args, ctx, hub } = this;
    const result = (await execute({
      ...args,
      contextValue: ctx,
      rootValue: tokenExpired(),
    })) as ExecutionResult;
    const masked = result.errors
      ? { ...result, errors: result.errors.map(hub.options.maskError) }
      : result;
    return first && this.#warnings ? withWarnings(masked, this.#warnings) : masked;
  }

  add(member: Member): void {
    this.#members.add(member);
    if (!this.#running) void this.#run();
  }

  remove(member: Member): void {
    this.#members.delete(member);
    if (this.#members.size === 0) this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #pause(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
      if (ms !== undefined) setTimeout(() => this.#notify(), ms).unref();
    });
  }

  async #run(): Promise<void> {
    this.#running = true;
    const { events } = this.hub.options;
    try {
      while (this.#members.size > 0) {
        if (this.cursor >= events.head) {
          await this.#pause();
          continue;
        }
        let batch: readonly ChangeEvent[];
        try {
          batch = await events.after(this.cursor, BATCH);
        } catch (error) {
          // Behind what the outbox keeps (never, at the head), or the outbox cannot be read.
          if (error instanceof DomainError) throw error;
          await this.#pause(RETRY_MS);
          continue;
        }
        for (const event of batch) {
          await this.#deliver(event);
          this.cursor = event.id;
          if (this.#members.size === 0) break;
        }
      }
    } catch (error) {
      this.hub.options.logger.error({ err: error }, 'a subscription group stopped');
      // Each member reads its own stream instead, which says what happened.
      for (const member of [...this.#members]) member.interrupt(true);
    } finally {
      this.#running = false;
      if (this.#members.size === 0) {
        this.#stopWatching();
        this.forget();
      }
    }
  }

  /**
   * One event: selected, read, executed and serialized once, written to every member. The read and
   * the execution run in the event's span (an `EventSlot`, as a member's own stream has one), so
   * that with tracing on the reads of its fields are in the event's trace.
   */
  async #deliver(event: ChangeEvent): Promise<void> {
    const slot: EventSlot = { current: undefined };
    try {
      const result = await withEventSlot(slot, () => this.#execute(event));
      if (!result) return;
      const cursor = cursorOf(event.id);
      const { maskError } = this.hub.options;
      const sent: ExecutionResult = {
        ...result,
        ...(result.errors ? { errors: result.errors.map(maskError) } : {}),
        extensions: { ...result.extensions, cursor },
      } as ExecutionResult;
      const bytes = new EventBytes(cursor, sent, this.#warnings);
      for (const member of this.#members) member.send(bytes, event.id);
    } finally {
      slot.current?.end();
    }
  }

  /** An event's result for the group, or undefined when the group's selection skips it. */
  async #execute(event: ChangeEvent): Promise<ExecutionResult | undefined> {
    const selection = this.#selection;
    const selected = event.change && selection.select(event.change);
    if (selected === undefined) return undefined;
    let value: unknown;
    try {
      value = await deliverEvent(this.ctx, selection, selected, event);
    } catch (error) {
      // The field's resolver throws it: an error on this event, and the stream goes on.
      value = error instanceof Error ? error : new Error(String(error));
    }
    if (value === undefined) return undefined;
    return this.hub.resultOf(this.args, this.ctx, cursorOf(event.id), value);
  }
}
