/**
 * One complete answer in a streamed answer's media type: what the response cache answers a
 * deferred request with (it keeps complete results only, never a part). Framed as Yoga's
 * multipart writer and the event stream (src/live/sse.ts) frame a part.
 */
export function completeAnswer(json: string, contentType: string): string {
  if (contentType.startsWith('text/event-stream'))
    return `:\n\nevent: next\ndata: ${json}\n\nevent: complete\ndata:\n\n`;
  return (
    '\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}\r\n-----\r\n`
  );
}

/** Whether an answer's media type is a streamed one. */
export const isStreamedType = (contentType: string | null | undefined) =>
  !!contentType && /^(multipart\/mixed|text\/event-stream)/i.test(contentType);
