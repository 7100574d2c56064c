import type { Viewer } from '../domain/context.js';

/** What an edge adds to its request's access line (GraphQL: the operation names). */
export interface AccessLogFields {
  operation?: string;
}

/** Per-request values that app-level middleware hands to the edges (GraphQL and REST). */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The caller, from the request's bearer token; anonymous without one. */
    viewer: Viewer;
    /** Fields an edge adds to the request's access log line. */
    accessLog: AccessLogFields;
    /** Aborted when the request runs past its time limit: work for it should stop. */
    signal: AbortSignal;
  };
}
