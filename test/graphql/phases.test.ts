import { type ExecutionResult, GraphQLError } from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { mergePhases } from '../../src/graphql/phases.js';

const schema = createSchema({
  typeDefs: 'type Query { hello: String, slow: String }',
  resolvers: { Query: { hello: () => 'world', slow: () => 'late' } },
});

/**
 * Plugins that use what a phase offers (set, replace, stop, answer later, after-hooks) and note
 * every call in `trace`: served merged and unmerged, the same requests must leave the same trace
 * and get the same answers.
 */
function plugins(trace: string[]): Plugin[] {
  const note = (entry: string): void => {
    trace.push(entry);
  };
  return [
    {
      onRequestParse: ({ request, requestParser, setRequestParser, endResponse }) => {
        note(`a parse ${requestParser ? 'has' : 'no'} parser`);
        if (request.headers.get('x-end')) endResponse(new Response('ended', { status: 418 }));
        if (requestParser) {
          const parse = requestParser;
          setRequestParser((req) => {
            note('a parser');
            return parse(req);
          });
        }
        return {
          onRequestParseDone: ({ requestParserResult, setRequestParserResult }) => {
            note(`a done ${JSON.stringify(requestParserResult)}`);
            if (!Array.isArray(requestParserResult) && requestParserResult.query === '{ hi }')
              setRequestParserResult({ ...requestParserResult, query: '{ hello }' });
          },
        };
      },
      onParams: ({ params, setParams }) => {
        note(`a params ${params.query}`);
        if (params.query === '{ slow }') return Promise.resolve().then(() => note('a waited'));
        setParams({ ...params, extensions: { seen: 'a' } });
      },
      onParse: ({ params, parseFn, setParseFn }) => {
        note(`a parse ${params.source}`);
        setParseFn(function counted(source, options) {
          note('a parser');
          return parseFn(source, options);
        });
        return ({ result, replaceParseResult }) => {
          note(`a parsed ${result instanceof Error ? 'error' : 'document'}`);
          if (result instanceof Error) replaceParseResult(new GraphQLError(`a: ${result.message}`));
        };
      },
      onValidate: ({ validateFn, setValidationFn, addValidationRule }) => {
        note(`a validate ${validateFn.name}`);
        addValidationRule(() => {
          note('a rule');
          return {};
        });
        setValidationFn(function checked(...args) {
          note('a validator');
          return validateFn(...args);
        });
        return ({ valid, result, setResult }) => {
          note(`a validated ${valid} ${result.length}`);
          if (!valid) setResult(result.map((error) => new GraphQLError(`a: ${error.message}`)));
        };
      },
      onExecute: ({ executeFn, setExecuteFn, args, setResultAndStopExecution }) => {
        note(`a execute ${executeFn.name || 'default'}`);
        if (args.contextValue.request.headers.get('x-stop'))
          return Promise.resolve().then(() => setResultAndStopExecution({ data: { stopped: 1 } }));
        setExecuteFn(function wrapped(execArgs) {
          note('a wrapped');
          return executeFn(execArgs);
        });
        return { onExecuteDone: ({ result }) => note(`a done ${JSON.stringify(result)}`) };
      },
      onExecutionResult: ({ result, setResult }) => {
        note(`a result ${JSON.stringify(result)}`);
        setResult({ ...(result as ExecutionResult), extensions: { a: 1 } });
      },
      onResultProcess: ({ result, setResult, resultProcessor }) => {
        note(`a process ${resultProcessor ? 'has' : 'no'} processor`);
        const single = result as ExecutionResult;
        if (!Array.isArray(result))
          setResult({ ...single, extensions: { ...single.extensions, processed: 'a' } });
      },
    },
    { onSchemaChange: () => {} },
    {
      onRequestParse: ({ requestParser }) => {
        note(`b parse ${requestParser ? 'has' : 'no'} parser`);
        return Promise.resolve().then(() => ({
          onRequestParseDone: ({ requestParserResult }) =>
            Promise.resolve().then(() => note(`b done ${JSON.stringify(requestParserResult)}`)),
        }));
      },
      onParams: ({ params }) => {
        note(`b params ${params.query} ${JSON.stringify(params.extensions)}`);
      },
      onParse: ({ parseFn }) => {
        note(`b parse ${parseFn.name}`);
        return ({ result }) =>
          note(`b parsed ${result instanceof Error ? result.message : 'document'}`);
      },
      onValidate: ({ validateFn }) => {
        note(`b validate ${validateFn.name}`);
        return ({ valid, result }) => note(`b validated ${valid} ${result[0]?.message ?? ''}`);
      },
      onExecute: ({ executeFn, setExecuteFn }) => {
        note(`b execute ${executeFn.name}`);
        setExecuteFn(function outer(execArgs) {
          note('b outer');
          return executeFn(execArgs);
        });
        return {
          onExecuteDone: ({ result, setResult }) => {
            note(`b done ${JSON.stringify(result)}`);
            setResult({ ...(result as ExecutionResult), extensions: { b: 1 } });
          },
        };
      },
      onExecutionResult: ({ result }) => {
        note(`b result ${JSON.stringify(result)}`);
      },
      onResultProcess: ({ result }) => {
        note(`b process ${JSON.stringify(result)}`);
      },
    },
  ];
}

async function serve(merged: boolean, requests: Array<() => Request>) {
  const trace: string[] = [];
  const yoga = createYoga({
    schema,
    logging: false,
    plugins: merged ? mergePhases(plugins(trace)) : plugins(trace),
  });
  const answers: string[] = [];
  for (const request of requests) {
    trace.push('---');
    const response = await yoga.fetch(request());
    answers.push(`${response.status} ${await response.text()}`);
  }
  return { trace, answers };
}

const post =
  (query: string, headers: Record<string, string> = {}) =>
  () =>
    new Request('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });

describe('the policies hooks merged into one hook per phase', () => {
  it('run in the same order, see what earlier ones set and stop where Yoga stops', async () => {
    const requests = [
      post('{ hello }'),
      post('{ hi }'),
      post('{ slow }'),
      post('{ hello }', { 'x-stop': '1' }),
      post('{ hello }', { 'x-end': '1' }),
      post('{ nope }'),
      post('{ hello'),
      () =>
        new Request('http://localhost/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify([{ query: '{ hello }' }, { query: '{ slow }' }]),
        }),
    ];
    const yoga = await serve(false, requests);
    const merged = await serve(true, requests);
    expect(merged.answers).toEqual(yoga.answers);
    expect(merged.trace).toEqual(yoga.trace);
    // The scenarios did what they are for.
    expect(yoga.answers).toContain(
      '200 {"data":{"stopped":1},"extensions":{"a":1,"processed":"a"}}',
    );
    expect(yoga.answers).toContain('418 ended');
    expect(yoga.trace).toContain('a waited');
    expect(yoga.trace).toContain('b execute wrapped');
    expect(yoga.trace).not.toContain('b execute default');
    expect(yoga.trace).toContain('b parse counted');
    expect(yoga.trace).toContain('b parsed a: Syntax Error: Expected Name, found <EOF>.');
    expect(yoga.trace).toContain('b validate checked');
    expect(yoga.trace).toContain('a rule');
    expect(yoga.trace.filter((entry) => entry.startsWith('b validated false a: '))).toHaveLength(1);
  });

  it('leave the other hooks where they were and drop plugins left with none', () => {
    const [merged, ...rest] = mergePhases(plugins([]));
    expect(Object.keys(merged as object).sort()).toEqual([
      'onExecute',
      'onExecutionResult',
      'onParams',
      'onParse',
      'onRequestParse',
      'onResultProcess',
      'onValidate',
    ]);
    expect(rest.map((plugin) => Object.keys(plugin))).toEqual([['onSchemaChange']]);
    const single: Plugin[] = [{ onExecute: () => {} }, { onParse: () => {} }];
    expect(mergePhases(single)).toEqual(single);
  });
});
