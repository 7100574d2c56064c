import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Entity } from '../../cache/tags.js';
import type { Config } from '../../config.js';
import type { SharedReads } from '../../db/shared-reads.js';
import type { Scope } from '../../domain/authorization.js';
import type { DomainContext } from '../../domain/context.js';
import type { IfVersion } from '../../domain/versions.js';
import { type ErrorCode, validationFailed } from '../../errors/catalogue.js';
import type { AppEnv } from '../../http/env.js';
import { readJsonObject } from './body.js';
import { writeConditions } from './conditional.js';
import { ignoredProperties } from './schemas.js';
import { check } from './validation.js';

/** Where the façade is mounted; the OpenAPI document's `servers` entry. */
export const REST_BASE_PATH = '/api';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The writes to one resource, which take `If-Match` and `If-None-Match`: every route with one of
 * these methods names its resource in the path.
 */
export const conditionalMethods: readonly Method[] = ['put', 'patch', 'delete'];

export type HeaderDoc = {
  description: string;
  schema: { type: 'string' | 'integer'; format?: string; minimum?: number };
  required?: boolean;
};

export interface SuccessDoc {
  status: 200 | 201 | 204;
  description: string;
  /** The JSON body; none for 204. */
  schema?: z.ZodType;
  headers?: Record<string, HeaderDoc>;
}

/** A deprecated route: its headers (RFC 9745, RFC 8594) and the 410 after its sunset. */
export interface Deprecation {
  /** When the route was deprecated (the `Deprecation` header). */
  since: Date;
  /** When it stops answering (the `Sunset` header; 410 ENDPOINT_SUNSET from then on). */
  sunset(config: Config): Date;
  /** The `Link: <…>; rel="successor-version"` target. */
  successor: string;
  /** What to use instead, for messages: e.g. "the GraphQL query pet(id:)". */
  instead: string;
}

/**
 * One REST operation, declared once: the request parts as zod schemas, the success response, and
 * the rule errors its handler can yield. The request errors (400, 413, 415, 410) follow from the
 * declaration; openapi.ts turns it into the OpenAPI operation and api.ts mounts it.
 */
export interface RouteSpec<P, Q, B> {
  method: Method;
  /** OpenAPI path template relative to /api, e.g. `/pets/{petId}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  /** Every operation says what it does beyond its summary (OpenAPI linters ask for it). */
  description: string;
  params?: P;
  query?: Q;
  body?: B;
  success: SuccessDoc;
  /** Domain errors the handler can yield (404/409/422); request errors are derived. */
  errors?: readonly ErrorCode[];
  stability?: 'beta' | 'experimental';
  deprecation?: Deprecation;
  /**
   * The scope the caller's token needs. The domain function enforces it; this declares it for the
   * document (and the REST auth tests check the two agree).
   */
  scope?: Scope;
  /**
   * A public read the response cache may keep (for callers without a token), evicted by writes to
   * `entity`: the one named by the path parameter `idParam`, or any of its kind for a list.
   */
  cache?: { entity: Entity; idParam?: string };
}

/** What a handler gets besides the request: the domain context and the configuration. */
export interface HandlerDeps {
  domain: DomainContext;
  /** Public reads by id, coalesced with those of the other requests in flight. */
  shared: SharedReads;
  config: Config;
}

type Output<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteInput<P, Q, B> {
  params: Output<P>;
  query: Output<Q>;
  body: Output<B>;
  /**
   * What the request's `If-Match` and `If-None-Match` require of the resource's version, for the
   * domain's write to check atomically with it; undefined without them and on the other methods.
   */
  ifVersion: IfVersion | undefined;
}

type AnySpec = RouteSpec<z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType | undefined>;

export interface Route {
  readonly spec: AnySpec;
  /**
   * Reads and checks the request (body, path, query), then runs the handler. `params` are the
   * path's parameters as Hono decoded them (`c.req.param()`, which decodes them anew at each call).
   */
  run(
    c: Context<AppEnv>,
    deps: HandlerDeps,
    params: Record<string, string>,
  ): Promise<Response> | Response;
}

export function defineRoute<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  spec: RouteSpec<P, Q, B>,
  handle: (
    c: Context<AppEnv>,
    input: RouteInput<P, Q, B>,
    deps: HandlerDeps,
  ) => Promise<Response> | Response,
): Route {
  const conditional = conditionalMethods.includes(spec.method);
  /** Checks the request's parts (the body already read) and runs the handler. */
  const answer = (
    c: Context<AppEnv>,
    deps: HandlerDeps,
    params: Record<string, string>,
    body?: unknown,
  ) => {
    const bounds = deps.config.limits;
    const input = {
      params: spec.params ? check(spec.params, params, 'path', bounds) : undefined,
      query: spec.query
        ? check(spec.query, queryValues(c, spec.query), 'query', bounds)
        : undefined,
      body: spec.body ? check(spec.body, body, 'body', bounds) : undefined,
      ifVersion: conditional ? writeConditions(c) : undefined,
    } as RouteInput<P, Q, B>;
    return handle(c, input, deps);
  };
  const body = spec.body;
  return {
    spec: spec as AnySpec,
    // A route without a body answers with no promise of its own.
    run: body
      ? async (c, deps, params) => {
          const read = withoutProperties(await readJsonObject(c), ignoredProperties(body));
          return answer(c, deps, params, read);
        }
      : answer,
  };
}

function withoutProperties(body: Record<string, unknown>, names: readonly string[]) {
  const kept = { ...body };
  for (const name of names) delete kept[name];
  return kept;
}

/** The declared query parameters, each given at most once; undeclared ones are ignored. */
function queryValues(c: Context, schema: z.ZodObject): Record<string, string> {
  const all = c.req.queries();
  const values: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const given = all[key];
    if (!given) continue;
    if (given.length > 1)
      throw validationFailed(`Query parameter ${key} must be given at most once`);
    values[key] = given[0] as string;
  }
  return values;
}

/** A route's path as Hono writes it: `/pets/{petId}` → `/pets/:petId`. */
export const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
