/** Readers of streamed GraphQL answers, as a client without a library reads them. */

/** The JSON parts of a `multipart/mixed` answer (boundary `-`), in order. */
export function multipartParts(body: string): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = [];
  for (const chunk of body.split('\r\n---')) {
    const start = chunk.indexOf('\r\n\r\n');
    if (start < 0) continue;
    parts.push(JSON.parse(chunk.slice(start + 4)));
  }
  return parts;
}

/** The `next` events' JSON of a `text/event-stream` answer, and whether it ended with `complete`. */
export function eventStreamParts(body: string): { parts: Record<string, unknown>[]; completed: boolean } {
  const parts: Record<string, unknown>[] = [];
  let completed = false;
  for (const message of body.split('\n\n')) {
    const lines = message.split('\n');
    const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
    const data = lines
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (event === 'next') parts.push(JSON.parse(data));
    if (event === 'complete') completed = true;
  }
  return { parts, completed };
}

export const DEFER_2022 = 'multipart/mixed;deferSpec=20220824, application/json;q=0.9';
export const DEFER_V02 = 'multipart/mixed;incrementalSpec=v0.2, application/json;q=0.9';
