/** Every error code of the contract, with the HTTP status it always carries. */
export const errorStatus = {
  VALIDATION_FAILED: 400,
  MALFORMED_REQUEST: 400,
  QUERY_TOO_COMPLEX: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
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
  ENDPOINT_SUNSET: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNKNOWN_PET: 422,
  UNKNOWN_CATEGORY: 422,
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
