/** The two wire formats of incremental delivery. */
export type Spec = '2022' | 'v0.2';

/** How a client takes a streamed answer: the transport, and the format of its payloads. */
export interface Streamed {
  readonly transport: 'multipart' | 'sse' | 'websocket';
  readonly spec: Spec;
}

/**
 * The streamed answer a request's `Accept` asks for, or undefined when it takes one JSON answer
 * (a wildcard does not count: it gets JSON). `text/event-stream` wins over `multipart/mixed`, as
 * the answer's processors choose (src/live/sse.ts). The format is graphql-js 17's when that media
 * range carries `incrementalSpec=v0.2` (as Apollo Client 4's `GraphQL17Alpha9Handler` sends it),
 * else the 2022 one (`deferSpec=20220824` or no parameter).
 */
export function streamedFormat(accept: string | null | undefined): Streamed | undefined {
  if (!accept) return undefined;
  const lower = accept.toLowerCase();
  const sse = lower.includes('text/event-stream');
  if (!sse && !lower.includes('multipart/mixed')) return undefined;
  const wanted = sse ? 'text/event-stream' : 'multipart/mixed';
  for (const range of lower.split(',')) {
    const [type, ...parameters] = range.split(';').map((part) => part.replace(/\s/g, ''));
    if (type !== wanted) continue;
    const spec = parameters.includes('incrementalspec=v0.2') ? 'v0.2' : '2022';
    return { transport: sse ? 'sse' : 'multipart', spec };
  }
  return undefined;
}

const SOCKET_2022: Streamed = { transport: 'websocket', spec: '2022' };
const SOCKET_V02: Streamed = { transport: 'websocket', spec: 'v0.2' };

/**
 * The format of an operation sent over a WebSocket (graphql-ws), which always takes its answer in
 * parts (a `next` message each): graphql-js 17's when the `subscribe` message's `extensions` carry
 * `"incrementalSpec": "v0.2"` (the parameter an `Accept` header would carry), else the 2022 one.
 */
export function socketFormat(extensions: Record<string, unknown> | null | undefined): Streamed {
  return extensions?.incrementalSpec === 'v0.2' ? SOCKET_V02 : SOCKET_2022;
}
