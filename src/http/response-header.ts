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
 * A 200 answer made from its text and headers (lower-case names; taken over, not copied), with the
 * headers every answer to the request carries (`addAnswerHeaders`) written in at once; the parts
 * are noted (`answerParts`) for the HTTP validators. An answer made whole is sent as it is: adding
 * a header to a ready answer builds its web `Headers` first (see `setResponseHeaders`).
 */
export function answerFromParts(
  c: Context<AppEnv>,
  body: string,
  headers: Record<string, string>,
): Response {
  const always = c.get('answerHeaders');
  for (const name in always) headers[name] = always[name] as string;
  const response = new Response(body, { status: 200, headers });
  c.set('answerParts', { response, body, headers });
  return response;
}

/** Whether the request's answer was made from parts that already hold every one of `headers`. */
function holdsAll(c: Context<AppEnv>, headers: Readonly<Record<string, string>>): boolean {
  const made = c.get('answerParts');
  if (made?.response !== c.res) return false;
  for (const name in headers) if (made.headers[name] !== headers[name]) return false;
  return true;
}

/**
 * Adds headers to a request's answer once the answer is ready. An answer whose headers cannot
 * change (one made by `Response.redirect` or `fetch`) is copied first.
 */
export function setResponseHeaders(
  c: Context<AppEnv>,
  headers: Readonly<Record<string, string>>,
): void {
  if (holdsAll(c, headers)) return;
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
