import { isDatabaseTimeout, isDatabaseUnreachable } from '../db/errors.js';

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
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PET_NOT_FOUND: 404,
  CATEGORY_NOT_FOUND: 404,
  ORDER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PET_NOT_AVAILABLE: 409,
  INSUFFICIENT_STOCK: 409,
  ORDER_ALREADY_COMPLETE: 409,
  PET_HAS_ORDERS: 409,
  CATEGORY_IN_USE: 409,
  CATEGORY_NAME_TAKEN: 409,
  /** The first request with this Idempotency-Key is still running (with Retry-After). */
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

/** An expected failure: a contract error code and a message a person can act on. */
export class DomainError extends Error {
  override name = 'DomainError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.status = errorStatus[code];
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status };
  }
}

export function validationFailed(message: string): DomainError {
  return new DomainError('VALIDATION_FAILED', message);
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

/** An error body whose message is at most `errorMessageBytes`. */
export function boundedBody(body: ErrorBody, bounds: ErrorBounds): ErrorBody {
  const message = clipText(body.message, bounds.errorMessageBytes);
  return message === body.message ? body : { ...body, message };
}

/** How a failure is logged: known outages as throttled warnings, the unexpected as errors. */
export interface FailureLog {
  level: 'warn' | 'error';
  /** The cause, a fixed sentence: logs are throttled per cause. */
  message: string;
  throttled: boolean;
}

/** The contract error for a failure, and whether and how to log it. */
export interface ClassifiedError {
  body: ErrorBody;
  log: FailureLog | undefined;
}

export const unavailableMessage = 'The database cannot be reached; try again later.';
const timeoutMessage = 'The request took longer than the time limit and was abandoned';
const internalMessage = 'Unexpected error; it has been logged.';

/**
 * The one decision of which contract error anything thrown is. Both edges, the metrics and the
 * health check render its answer; none decides on its own. The GraphQL edge first gives the
 * GraphQL server's own request errors their codes (src/graphql/errors.ts), then asks this.
 */
export function classifyError(error: unknown): ClassifiedError {
  if (error instanceof DomainError) return { body: error.toBody(), log: undefined };
  if (isDatabaseUnreachable(error)) {
    return {
      body: new DomainError('UNAVAILABLE', unavailableMessage).toBody(),
      log: { level: 'warn', message: 'the database cannot be reached', throttled: true },
    };
  }
  if (isDatabaseTimeout(error)) {
    return {
      body: new DomainError('TIMEOUT', timeoutMessage).toBody(),
      log: { level: 'warn', message: 'a statement ran past the time limit', throttled: true },
    };
  }
  return {
    body: new DomainError('INTERNAL', internalMessage).toBody(),
    log: { level: 'error', message: 'unexpected error', throttled: false },
  };
}

/** The 503 of a request past its time limit. */
export function timeoutError(): DomainError {
  return new DomainError('TIMEOUT', timeoutMessage);
}
