import type { ExecutionResult } from 'graphql';
import type { Viewer } from '../domain/context.js';
import type { DomainError } from '../errors/catalogue.js';
import type { Deadline } from './deadline.js';

/**
 * The client a request names in its `graphql-client-name` / `graphql-client-version` headers (or
 * Apollo Client's `apollographql-client-*`), as bounded label values: `unknown` when it names none,
 * `other` past the configured number of names or versions (src/observability/client-name.ts).
 */
export interface ClientName {
  readonly name: string;
  readonly version: string;
}

/**
 * What a GraphQL answer's operations used, for the usage counts (src/usage/): the response cache
 * keeps it with the answer it stores and hands it back on a hit, which runs no operation.
 */
export interface UsageNote {
  /** The schema coordinates the operations used, space-separated (set by the GraphQL edge). */
  coordinates: string | undefined;
  /** Set by the response cache when it answered from an entry: the coordinates kept with it. */
  fromCache: string | undefined;
}

/**
 * How an edge tells the response cache that it may keep an answer: with what the answer holds
 * (`pet:42`, `pet:*`) and, on GraphQL, the results it answers (with their cost reports, which the
 * cache keeps apart). An answer the edge never calls it for is not kept.
 */
export type Cacheable = (
  tags: readonly string[],
  results?: ExecutionResult | readonly ExecutionResult[],
) => void;

/** What an edge adds to its request's access line (GraphQL: the operation names). */
export interface AccessLogFields {
  operation?: string;
  /** The error codes of the answer (src/http/access-log-fields.ts). */
  code?: string;
}

/** A caller's GraphQL cost budget at one moment, in Shopify's `throttleStatus` shape. */
export interface CostBudgetStatus {
  /** The most points the budget holds. */
  maximumAvailable: number;
  /** The points it holds now (whole points). */
  currentlyAvailable: number;
  /** Points it gets back a second. */
  restoreRate: number;
}

export type CostCharge =
  | { allowed: true; status: CostBudgetStatus }
  | { allowed: false; status: CostBudgetStatus; retryAfterSeconds: number };

/**
 * The caller's GraphQL cost budget as one request uses it (src/rate-limit/cost-budget.ts): the
 * GraphQL edge charges an operation's estimated cost before it runs and refunds what it did not
 * spend after.
 */
export interface CostAccount {
  /** Takes `points`; when the budget holds fewer, takes nothing and says how long to wait. */
  charge(points: number): Promise<CostCharge>;
  /** Gives back `points` charged but not spent. */
  refund(points: number): Promise<CostBudgetStatus>;
  /** The budget as this request last saw it, or as it is now when the request has not touched it. */
  status(): Promise<CostBudgetStatus>;
}

/** Per-request values that app-level middleware hands to the edges (GraphQL and REST). */
/** A 200 JSON answer and what it was made of: its text and its headers (lower-case names). */
export interface AnswerParts {
  readonly response: Response;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    /** The caller, from the request's bearer token; anonymous without one. */
    viewer: Viewer;
    /**
     * The client the request names in its headers, bounded (`unknown` when it names none): set once
     * the token is checked (`nameClient`), or by the access log on a route without a token check.
     */
    clientName: ClientName | undefined;
    /** On /graphql while usage is counted: what the answer used (UsageNote). */
    usageNote: UsageNote | undefined;
    /** Fields an edge adds to the request's access log line. */
    accessLog: AccessLogFields;
    /** The request's time limit: its signal aborts when the request runs past it. */
    deadline: Deadline;
    /**
     * What a JSON read's answer was made of (the REST kit notes it, src/rest/kit/respond.ts): the
     * HTTP validators use these parts instead of reading the answer's body and headers back.
     */
    answerParts: AnswerParts | undefined;
    /** Set by the response cache on a public read it may keep (src/cache/http.ts): `Cacheable`. */
    cacheable: Cacheable | undefined;
    /**
     * A token that is present but invalid: the rate limit counts the request (by address) before
     * it is refused with 401 (src/auth/authenticate.ts).
     */
    invalidToken: DomainError | undefined;
    /**
     * Headers every answer to the request carries, whoever gives it, known before there is one:
     * the request id, a deprecated route's marks (src/http/response-header.ts).
     */
    answerHeaders: Record<string, string>;
    /** A call of a deprecated REST route: its answer carries `Deprecation` (src/warnings/rest.ts). */
    deprecated: true | undefined;
    /** On /graphql while the cost budget is on: the caller's budget (src/rate-limit/). */
    costAccount: CostAccount | undefined;
  };
}
