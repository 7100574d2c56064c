import { createGraphQLError } from '@graphql-tools/utils';
import type { Plugin } from 'graphql-yoga';

/** Yoga's own default request body limit, kept as it was. */
export const DEFAULT_MAX_BODY_BYTES = 25_000_000;

function tooLarge() {
  return createGraphQLError('Request body too large', {
    extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  });
}

function invalidContentLength() {
  return createGraphQLError('Content-Length header is invalid.', {
    extensions: { http: { status: 400 }, code: 'BAD_REQUEST' },
  });
}

/**
 * Yoga's request body limit (use with `maxRequestBodySize: false`), minus its per-request cost.
 * Yoga pipes every body through a TransformStream and builds a second Request to count bytes; that
 * also makes @hono/node-server materialise a native Request with a web stream, instead of reading
 * the socket directly. A body with a valid Content-Length cannot be longer than that (Node's HTTP
 * parser stops there), so the header check suffices; only a body without one (chunked) is counted
 * as it streams, as Yoga does.
 */
export function useBodyLimit(limit = DEFAULT_MAX_BODY_BYTES): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const contentLength = request.headers.get('content-length');
      if (contentLength != null) {
        if (!/^\d+$/.test(contentLength)) throw invalidContentLength();
        if (Number(contentLength) > limit) throw tooLarge();
        return;
      }
      if (requestParser == null || request.body == null) return;
      const parse = requestParser;
      setRequestParser((original) => {
        const body = original.body;
        if (!body) return parse(original);
        let bytes = 0;
        // A native stream needs a native TransformStream, a ponyfill one the ponyfill's (as in Yoga).
        const Transform =
          body instanceof ReadableStream ? TransformStream : fetchAPI.TransformStream;
        const counted = body.pipeThrough(
          new Transform<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              bytes += chunk.byteLength;
              if (bytes > limit) controller.error(tooLarge());
              else controller.enqueue(chunk);
            },
          }),
        );
        const init = {
          method: original.method,
          headers: original.headers,
          signal: original.signal,
          body: counted,
          duplex: 'half',
        } as RequestInit;
        return parse(new fetchAPI.Request(original.url, init));
      });
    },
  };
}
