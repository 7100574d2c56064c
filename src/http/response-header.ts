import type { Context } from 'hono';
import type { AppEnv } from './env.js';

/**
 * Notes headers that every answer to the request carries, whoever gives it (the handler, the token
 * check, the time limit): the access log, outermost, puts them on the answer with the request id
 * once it is ready.
 */
export function addAnswerHeaders(
  c: Context<AppEnv>,
  headers: Readonly<Record<string, string>>,
): void {
  Object.assign(c.get('answerHeaders'), headers);
}

/**
 * Adds headers to a request's answer once the answer is ready. An answer whose headers cannot
 * change (one made by `Response.redirect` or `fetch`) is copied first.
 */
export function setResponseHeaders(c: Context, headers: Readonly<Record<string, string>>): void {
  try {
    for (const name in headers) c.res.headers.set(name, headers[name] as string);
  } catch {
    replaceResponse(c, new Response(c.res.body, c.res));
    for (const name in headers) c.res.headers.set(name, headers[name] as string);
  }
}

/**
 * Replaces a request's answer whole: assigned over an answer, Hono's `c.res` would copy the old
 * answer's headers into the new one (a 304 would get the 200's `Content-Length` back).
 */
export function replaceResponse(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}
