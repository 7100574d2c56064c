/** Short, plain ids only: they end up in logs and response headers. */
const saneRequestId = /^[\w.:@/+=-]{1,128}$/;

/** The caller's `X-Request-Id` when it is sane, else a fresh UUID. */
export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && saneRequestId.test(header) ? header : crypto.randomUUID();
}
