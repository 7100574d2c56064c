/**
 * The phases every HTTP operation passes through whose hooks Yoga and envelop call one by one:
 * each hook costs a payload with its own setters (and, but for parse and validation, four wrapper
 * promises), about a microsecond, whether it does anything or not. The app's policies hook these
 * phases about thirty times per request; merged here, each phase costs one hook.
 */
const mergedPhases = [
  'onRequestParse',
  'onParams',
  'onParse',
  'onValidate',
  'onExecute',
  'onExecutionResult',
  'onResultProcess',
] as const;

type Phase = (typeof mergedPhases)[number];
type Hook = (payload: object) => unknown;
type Payload = Record<string, unknown>;

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';

/**
 * Calls each of `hooks` with `payload` in turn, from `from`, waiting for any that returns a
 * promise, and keeps what they return in `kept`; stops early once `stopped()` says so.
 */
function inTurn(
  hooks: readonly Hook[],
  payload: object,
  kept: unknown[],
  stopped: () => boolean,
  from = 0,
): void | Promise<void> {
  for (let at = from; at < hooks.length; at++) {
    if (stopped()) return;
    const returned = (hooks[at] as Hook)(payload);
    if (isThenable(returned))
      return Promise.resolve(returned).then((value) => {
        if (value) kept.push(value);
        return inTurn(hooks, payload, kept, stopped, at + 1);
      });
    if (returned) kept.push(returned);
  }
}

const never = () => false;

/** `then` for a value that is a promise only sometimes: a sync result stays sync. */
const after = <T>(pending: void | Promise<void>, next: () => T): T | Promise<T> =>
  pending ? pending.then(next) : next();

/**
 * The plugins with the hooks of `mergedPhases` that two or more of them have merged into one
 * plugin, first in the list, whose hook calls theirs in the plugins' order with the same payload as
 * Yoga would (what an earlier hook set, a later one reads; a hook that stops the phase stops it).
 * Every other hook stays where it was; a plugin left with nothing is dropped.
 */
export function mergePhases<P extends object>(plugins: readonly P[]): P[] {
  const hooksOf = (phase: Phase) =>
    plugins.flatMap((plugin) => {
      const hook = (plugin as Record<string, unknown>)[phase];
      return hook ? [hook as Hook] : [];
    });
  const merged: Record<string, unknown> = {};
  const phases = mergedPhases.filter((phase) => hooksOf(phase).length > 1);
  for (const phase of phases) merged[phase] = merge[phase](hooksOf(phase));
  if (phases.length === 0) return [...plugins];
  const rest = plugins.flatMap((plugin) => {
    const left = { ...plugin } as Record<string, unknown>;
    for (const phase of phases) delete left[phase];
    return Object.keys(left).length > 0 ? [left as P] : [];
  });
  return [merged as P, ...rest];
}

/**
 * One payload per phase and request, shared by the phase's hooks. What a setter changes is a plain
 * property it rewrites: a payload with getters instead (an object literal's `get executeFn()`) cost
 * the whole process about half as much CPU again, the collector's share growing from 13% to 32%.
 */
const merge: Record<Phase, (hooks: Hook[]) => unknown> = {
  onRequestParse: (hooks) => (outer: Payload) => {
    let stopped = false;
    const payload = {
      request: outer.request,
      url: outer.url,
      serverContext: outer.serverContext,
      fetchAPI: outer.fetchAPI,
      requestParser: outer.requestParser,
      setRequestParser(parser: unknown) {
        payload.requestParser = parser;
        (outer.setRequestParser as (parser: unknown) => void)(parser);
      },
      endResponse(response: unknown) {
        stopped = true;
        (outer.endResponse as (response: unknown) => void)(response);
      },
    };
    return withAfterHooks(hooks, payload, () => stopped, parseDoneOf);
  },

  onParams: (hooks) => (outer: Payload) => {
    const payload = {
      request: outer.request,
      context: outer.context,
      fetchAPI: outer.fetchAPI,
      setResult: outer.setResult,
      params: outer.params,
      setParams(value: unknown) {
        payload.params = value;
        (outer.setParams as (value: unknown) => void)(value);
      },
      paramsHandler: outer.paramsHandler,
      setParamsHandler(handler: unknown) {
        payload.paramsHandler = handler;
        (outer.setParamsHandler as (handler: unknown) => void)(handler);
      },
    };
    return inTurn(hooks, payload, [], never);
  },

  // Parse and validation are synchronous in envelop: their hooks return an after-hook, never a promise.
  // Their payloads are written out, like the other phases': copies made by spreading envelop's
  // held more under a flood of unparsable documents on Node 24 (bench/rounds.md in git history, fifteenth round).
  onParse: (hooks) => (outer: Payload) => {
    const payload = {
      context: outer.context,
      extendContext: outer.extendContext,
      params: outer.params,
      parseFn: outer.parseFn,
      setParseFn(fn: unknown) {
        payload.parseFn = fn;
        (outer.setParseFn as (fn: unknown) => void)(fn);
      },
      setParsedDocument: outer.setParsedDocument,
    };
    return inOrder(syncAfterHooks(hooks, payload), (done: Payload) => {
      const afterPayload = {
        context: done.context,
        extendContext: done.extendContext,
        result: done.result,
        replaceParseResult(result: unknown) {
          afterPayload.result = result;
          (done.replaceParseResult as (result: unknown) => void)(result);
        },
      };
      return afterPayload;
    });
  },

  onValidate: (hooks) => (outer: Payload) => {
    const payload = {
      context: outer.context,
      extendContext: outer.extendContext,
      params: outer.params,
      validateFn: outer.validateFn,
      addValidationRule: outer.addValidationRule,
      setValidationFn(fn: unknown) {
        payload.validateFn = fn;
        (outer.setValidationFn as (fn: unknown) => void)(fn);
      },
      setResult: outer.setResult,
    };
    return inOrder(syncAfterHooks(hooks, payload), (done: Payload) => {
      const afterPayload = {
        valid: done.valid,
        result: done.result,
        context: done.context,
        extendContext: done.extendContext,
        setResult(result: unknown) {
          afterPayload.result = result;
          (done.setResult as (result: unknown) => void)(result);
        },
      };
      return afterPayload;
    });
  },

  onExecute: (hooks) => (outer: Payload) => {
    let stopped = false;
    const payload = {
      args: outer.args,
      context: outer.context,
      extendContext: outer.extendContext,
      executeFn: outer.executeFn,
      setExecuteFn(fn: unknown) {
        payload.executeFn = fn;
        (outer.setExecuteFn as (fn: unknown) => void)(fn);
      },
      setResultAndStopExecution(result: unknown) {
        stopped = true;
        (outer.setResultAndStopExecution as (result: unknown) => void)(result);
      },
    };
    return withAfterHooks(hooks, payload, () => stopped, executeDoneOf);
  },

  onExecutionResult: (hooks) => (outer: Payload) => {
    const payload = {
      request: outer.request,
      context: outer.context,
      result: outer.result,
      setResult(value: unknown) {
        payload.result = value;
        (outer.setResult as (value: unknown) => void)(value);
      },
    };
    return inTurn(hooks, payload, [], never);
  },

  onResultProcess: (hooks) => (outer: Payload) => {
    const payload = {
      request: outer.request,
      acceptableMediaTypes: outer.acceptableMediaTypes,
      serverContext: outer.serverContext,
      result: outer.result,
      setResult(value: unknown) {
        payload.result = value;
        (outer.setResult as (value: unknown) => void)(value);
      },
      resultProcessor: outer.resultProcessor,
      setResultProcessor(processor: unknown, mediaType: unknown) {
        payload.resultProcessor = processor;
        (outer.setResultProcessor as (processor: unknown, mediaType: unknown) => void)(
          processor,
          mediaType,
        );
      },
    };
    return inTurn(hooks, payload, [], never);
  },
};

/** Calls each of `hooks` with `payload`, none of which waits, and returns the after-hooks they gave. */
function syncAfterHooks(hooks: readonly Hook[], payload: object): Hook[] {
  const returned: Hook[] = [];
  for (const hook of hooks) {
    const afterHook = hook(payload);
    if (afterHook) returned.push(afterHook as Hook);
  }
  return returned;
}

/** After-hooks as one, each called in turn with one payload (`payloadOf`) that the setters keep current. */
function inOrder(hooks: readonly Hook[], payloadOf: (outer: Payload) => object) {
  if (hooks.length === 0) return undefined;
  if (hooks.length === 1) return hooks[0];
  return (outer: Payload) => {
    const payload = payloadOf(outer);
    for (const hook of hooks) hook(payload);
  };
}

/** Runs a phase's hooks, then merges the after-hooks they returned with `mergeAfter`. */
function withAfterHooks<Returned>(
  hooks: readonly Hook[],
  payload: object,
  stopped: () => boolean,
  mergeAfter: (returned: Returned[]) => unknown,
) {
  const returned: Returned[] = [];
  return after(inTurn(hooks, payload, returned, stopped), () => mergeAfter(returned));
}

const parseDoneOf = (returned: Array<{ onRequestParseDone?: Hook }>) => {
  const hooks: Hook[] = [];
  for (const one of returned) if (one.onRequestParseDone) hooks.push(one.onRequestParseDone);
  return hooks.length === 0 ? undefined : { onRequestParseDone: mergedParseDone(hooks) };
};

const executeDoneOf = (returned: Array<{ onExecuteDone?: Hook }>) => {
  const withDone = returned.filter((one) => one.onExecuteDone);
  return withDone.length === 0 ? undefined : { onExecuteDone: mergedExecuteDone(withDone) };
};

/** The `onRequestParseDone` hooks of one request's parse, in turn, with Yoga's payload. */
function mergedParseDone(hooks: Hook[]) {
  return (outer: Payload) => {
    const payload = {
      requestParserResult: outer.requestParserResult,
      setRequestParserResult(value: unknown) {
        payload.requestParserResult = value;
        (outer.setRequestParserResult as (value: unknown) => void)(value);
      },
    };
    return inTurn(hooks, payload, [], never);
  };
}

interface StreamHandlers {
  onNext?: (payload: Payload) => unknown;
  onEnd?: () => void;
}

/** The payload of an execution's after-hooks and of a streamed result's events, as envelop's. */
function resultPayload(outer: Payload) {
  const payload = {
    args: outer.args,
    result: outer.result,
    setResult(value: unknown) {
      payload.result = value;
      (outer.setResult as (value: unknown) => void)(value);
    },
  };
  return payload;
}

/** The `onExecuteDone` hooks of one execution, in turn; a streamed result's handlers merged too. */
function mergedExecuteDone(returned: Array<{ onExecuteDone?: Hook }>) {
  const hooks = returned.map((one) => (done: object) => one.onExecuteDone?.(done));
  return (outer: Payload) =>
    withAfterHooks(hooks, resultPayload(outer), never, (streams: StreamHandlers[]) =>
      streams.length === 0 ? undefined : mergedStream(streams),
    );
}

/** Several hooks' handlers of a streamed result's events as one. */
function mergedStream(streams: StreamHandlers[]): StreamHandlers {
  const onNext = streams.flatMap((one) =>
    one.onNext ? [(next: object) => one.onNext?.(next as Payload)] : [],
  );
  const onEnd = streams.filter((one) => one.onEnd);
  return {
    ...(onNext.length > 0 && {
      onNext: (outer: Payload) => inTurn(onNext, resultPayload(outer), [], never),
    }),
    ...(onEnd.length > 0 && {
      onEnd: () => {
        for (const one of onEnd) one.onEnd?.();
      },
    }),
  };
}
