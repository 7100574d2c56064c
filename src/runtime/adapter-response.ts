/**
 * The `Response` Yoga builds its answers with: the one that is global when a request runs. Under
 * @hono/node-server that is the adapter's lightweight `Response` (its `serve` puts it in place of
 * the global one, as its README says), whose string body the adapter writes to the socket at
 * once; Yoga's own default, the @whatwg-node ponyfill, is drained through a stream reader, which
 * cost `pet(id)` about a fifth more CPU (src/runtime/README.md).
 * test/runtime/adapter-response.test.ts fails once either dependency behaves otherwise.
 */
export const adapterResponse = function AdapterResponse(
  body?: BodyInit | null,
  init?: ResponseInit,
): Response {
  return new globalThis.Response(body, init);
} as unknown as typeof Response;
