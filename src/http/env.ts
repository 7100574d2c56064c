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
    /**
     * Set by the response cache on a public read it may keep (src/cache/http.ts): the edge calls it
     * with what its answer holds (`pet:42`, `pet:*`), and an answer it never calls it for is not
     * kept.
     */
    cacheable: ((tags: readonly string[]) => void) | undefined;
  };
}
