import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { AppEnv } from './env.js';
import { plainAnswer, plainParts, replaceResponse } from './plain-answer.js';

/**
 * Notes headers that every answer to the request carries, whoever gives it (the handler, the token
 * check, the time limit): the access log, outermost, puts them on the answer with the request id
 * once it is ready, so that the answer is remade once for all of them. Lower-case names come
 * through `setResponseHeaders`' lowering as they are: no new string a name and answer.
 */
export function addAnswerHeaders(
  c: Context<AppEnv>,
  headers: Readonly<Record<string, string>>,
): void {
  Object.assign(c.get('answerHeaders'), headers);
}

/**
 * Adds headers to a request's answer once the answer is ready. A plain answer
 * (src/http/plain-answer.ts: a REST answer, a cache hit) gets a new one with them among its own,
 * so that Node writes one object of headers: a header put on the Node response instead
 * (`setHeader`) sends every header of the answer through `setHeader` too, Node's slow path.
 * Any other answer served by Node gets them on the Node response (`c.env.outgoing`), which
 * `writeHead` merges with the answer's: its web `Headers` is never built for them. In-process
 * (`app.fetch`), they go on the answer.
 */
export function setResponseHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  const parts = plainParts(c.res);
  if (parts) {
    const merged: Record<string, string> = { ...parts.headers };
    for (const name in headers) merged[name.toLowerCase()] = headers[name] as string;
    replaceResponse(c, plainAnswer({ ...parts, headers: merged }));
    return;
  }
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && !outgoing.headersSent) {
    for (const name in headers) outgoing.setHeader(name, headers[name] as string);
    return;
  }
  try {
    for (const name in headers) c.res.headers.set(name, headers[name] as string);
  } catch {
    // Some responses have immutable headers; copy them into a new response.
    c.res = new Response(c.res.body, c.res);
    for (const name in headers) c.res.headers.set(name, headers[name] as string);
  }
}
