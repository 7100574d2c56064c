/**
 * The catalogue of contract errors: every error a client can see is one of these codes, with the
 * HTTP status it always carries, its message, and the headers that go with it. Every shape an
 * error is sent in (src/errors/rest.ts, graphql.ts, socket.ts) renders these values; nothing else
 * builds an error body.
 */

/** Every error code of the contract, with the HTTP status it always carries. */
export const errorStatus = {
  VALIDATION_FAILED: 400,
  MALFORMED_REQUEST: 400,
  QUERY_TOO_COMPLEX: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  /** An automatic persisted query's hash the server does not know (yet): the client resends. */
  PERSISTED_QUERY_NOT_FOUND: 400,
  /** An operation outside the manifest while PERSISTED_OPERATIONS_ONLY is set. */
  PERSISTED_QUERY_ONLY: 400,
  /** With `WWW-Authenticate` (`bearerChallenge`). */
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PET_NOT_FOUND: 404,
  CATEGORY_NOT_FOUND: 404,
  ORDER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  /** With `Allow` (`methodNotAllowed`). */
  METHOD_NOT_ALLOWED: 405,
  PET_NOT_AVAILABLE: 409,
  INSUFFICIENT_STOCK: 409,
  ORDER_ALREADY_COMPLETE: 409,
  PET_HAS_ORDERS: 409,
  CATEGORY_IN_USE: 409,
  CATEGORY_NAME_TAKEN: 409,
  /** The first request with this Idempotency-Key is still running (with `retryAfter`). */
  IDEMPOTENCY_KEY_IN_FLIGHT: 409,
  ENDPOINT_SUNSET: 410,
  /** A subscription resumed from a cursor older than the events kept (EVENT_RETENTION_HOURS). */
  EVENT_CURSOR_EXPIRED: 410,
  /** If-Match or ifVersion names a version that is no longer current. */
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNKNOWN_PET: 422,
  UNKNOWN_CATEGORY: 422,
  /** An Idempotency-Key already used for a different request. */
  IDEMPOTENCY_KEY_REUSED: 422,
  /** With `Retry-After` (`rateLimited`). */
  RATE_LIMITED: 429,
  /** Node's HTTP parser: request line and headers over its limit (src/http/client-error.ts). */
  REQUEST_HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  TIMEOUT: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** The Error shape of the contract: what both edges send for any failure. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

/** Headers an error is sent with, by their usual spelling (each renderer writes them its way). */
export type ErrorHeaders = Readonly<Record<string, string>>;

const noHeaders: ErrorHeaders = Object.freeze({});

/** The challenge of a 401: how to authenticate. */
export const BEARER_CHALLENGE = 'Bearer realm="petstore"';

/** `WWW-Authenticate` of every UNAUTHENTICATED; `error`: RFC 6750's, for a token that was refused. */
export const bearerChallenge = (error?: 'invalid_token'): ErrorHeaders => ({
  'WWW-Authenticate': error ? `${BEARER_CHALLENGE}, error="${error}"` : BEARER_CHALLENGE,
});

const challenge = bearerChallenge();

/** `Retry-After` of RATE_LIMITED and IDEMPOTENCY_KEY_IN_FLIGHT: when to try again. */
export const retryAfter = (seconds: number): ErrorHeaders => ({ 'Retry-After': String(seconds) });

/**
 * A contract error as every renderer reads it: its code, the status the code carries, a message a
 * person can act on, and the headers that go with it.
 */
export interface ContractError {
  readonly code: ErrorCode;
  readonly status: number;
  readonly message: string;
  readonly headers: ErrorHeaders;
}

/** An expected failure: a contract error code and a message a person can act on. */
export class DomainError extends Error implements ContractError {
  override name = 'DomainError';
  readonly status: number;
  readonly headers: ErrorHeaders;

  constructor(
    readonly code: ErrorCode,
    message: string,
    headers?: ErrorHeaders,
  ) {
    super(message);
    this.status = errorStatus[code];
    this.headers = headers ?? (code === 'UNAUTHENTICATED' ? challenge : noHeaders);
  }
}

/** The Error shape of a contract error: the one place its fields are put together. */
export function bodyOf({ code, message, status }: ContractError): ErrorBody {
  return { code, message, status };
}

export function validationFailed(message: string): DomainError {
  return new DomainError('VALIDATION_FAILED', message);
}

/** 405 on a path that exists: `Allow` names the methods it has. */
export function methodNotAllowed(message: string, allow: string): DomainError {
  return new DomainError('METHOD_NOT_ALLOWED', message, { Allow: allow });
}

const tooManyRequests = 'Too many requests; wait for Retry-After seconds and try again';

/** 429: over a rate limit or the cost budget, until `seconds` have passed. */
export function rateLimited(seconds: number, message = tooManyRequests): DomainError {
  return new DomainError('RATE_LIMITED', message, retryAfter(seconds));
}

/**
 * How much an error may carry of what a client sent, so that any refusal stays small whatever the
 * request (ERROR_MESSAGE_MAX_BYTES, ERROR_LIST_MAX).
 */
export interface ErrorBounds {
  /** The longest message, in UTF-8 bytes. */
  readonly errorMessageBytes: number;
  /** The most items one refusal lists (unknown properties, errors, locations). */
  readonly errorListItems: number;
}

const utf8 = new TextEncoder();

/**
 * `text` in at most `maxBytes` UTF-8 bytes: when longer, its start and `mark` (by default, how many
 * characters were left out), never half a character.
 */
export function clipText(text: string, maxBytes: number, mark?: string): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most texts need no count at all.
  if (text.length * 3 <= maxBytes) return text;
  const room = new Uint8Array(maxBytes);
  if (utf8.encodeInto(text, room).read === text.length) return text;
  const suffix = mark ?? `… (${text.length} characters, cut)`;
  const { read } = utf8.encodeInto(text, room.subarray(0, maxBytes - utf8.encode(suffix).length));
  return `${text.slice(0, read)}${suffix}`;
}

/** A contract error whose message is at most `errorMessageBytes`: itself when it fits. */
export function boundedError(error: ContractError, bounds: ErrorBounds): ContractError {
  const message = clipText(error.message, bounds.errorMessageBytes);
  if (message === error.message) return error;
  const { code, status, headers } = error;
  return { code, status, headers, message };
}
