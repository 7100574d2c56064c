import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';

export type DatabaseConfig =
  | {
      provider: 'sqlite';
      url: string;
      file: string;
    }
  | {
      provider: 'postgresql';
      url: string;
      schema: string | undefined;
      /** Connections this process may open (DATABASE_POOL_SIZE). */
      poolSize: number;
      /** Statements each connection keeps prepared (POSTGRES_STATEMENT_CACHE_SIZE; 0: none). */
      statementCacheSize: number;
    };

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly production: boolean;
  readonly database: DatabaseConfig;
  /** Load sample data when the database has no categories yet. */
  readonly seed: boolean;
  readonly auth: {
    readonly jwtSecret: string | undefined;
    readonly jwksUrl: string | undefined;
    readonly issuer: string | undefined;
    readonly audience: string | undefined;
    /** What the verified tokens kept for their next request may take, in bytes. */
    readonly tokenCacheBytes: number;
  };
  readonly petByIdSunset: Date;
  readonly rateLimitPerMinute: number;
  /** Cost points per client and minute for GraphQL (a bucket refilling continuously); 0: off. */
  readonly rateLimitCostPerMinute: number;
  /** Clients whose budgets one process keeps in memory (without Redis, or while it is away). */
  readonly rateLimitMaxClients: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly limits: Limits;
  /** How long a shutdown waits for in-flight requests before closing their connections. */
  readonly shutdownTimeoutMs: number;
  /** Origins whose browser scripts may call /graphql and /api; empty: same-origin only; `*`: any. */
  readonly corsOrigins: readonly string[];
  /** Shared state for replicas (rate limits, response cache); in process without it. */
  readonly redisUrl: string | undefined;
  /** How long a public read stays in the response cache; 0 turns the cache off. */
  readonly responseCacheTtlMs: number;
  /** A persisted-operations manifest (hash → document): when set, only its operations run. */
  readonly persistedOperationsOnly: string | undefined;
  /**
   * Whether traces are exported (an OTLP endpoint is set, OTEL_EXPORTER_OTLP_ENDPOINT or its
   * traces-only form); the OpenTelemetry SDK reads the other OTEL_* variables itself.
   */
  readonly tracing: boolean;
  /** How long an Idempotency-Key and the response it recorded are kept, in hours. */
  readonly idempotencyKeyTtlHours: number;
  /** The largest response an Idempotency-Key records (its body, in bytes). */
  readonly idempotencyRecordMaxBytes: number;
  /** The largest response the response cache keeps (its body, in bytes); larger ones are not cached. */
  readonly responseCacheMaxEntryBytes: number;
  /** What the response cache of one process may hold, in bytes (without Redis). */
  readonly responseCacheMaxBytes: number;
  /** How many entries one Redis command removes when a write evicts (the rest in further commands). */
  readonly responseCacheEvictChunk: number;
  readonly events: {
    /** How long committed events are kept for subscriptions to resume from, in hours. */
    readonly retentionHours: number;
    /** The newest events each process keeps in memory for its subscribers. */
    readonly bufferSize: number;
  };
  /** What a CDN in front may keep of the public answers, and how committed writes purge it. */
  readonly edge: EdgeSettings;
  /** How many client names and versions (request headers) become label values; the rest `other`. */
  readonly clientNames: ClientNameLimits;
  /** What the usage of schema coordinates and REST operations costs in memory and is kept for. */
  readonly usage: UsageSettings;
}

/** Where a committed write's purge goes (EDGE_PURGE_KIND): the request shape of each CDN. */
export type EdgePurgeKind = 'varnish' | 'fastly' | 'cloudflare';

export interface EdgeSettings {
  /** Whether public answers carry their tags, `Surrogate-Key` and `Cache-Tag` (EDGE_CACHE_TAGS). */
  readonly tags: boolean;
  /** How long a CDN may keep a public answer, in seconds (EDGE_CACHE_MAX_AGE_S); 0: no lifetime. */
  readonly maxAgeS: number;
  /** Where committed writes purge their tags (EDGE_PURGE_URL); none: no purges. */
  readonly purgeUrl: string | undefined;
  readonly purgeKind: EdgePurgeKind;
  /** Fastly's `Fastly-Key`, Cloudflare's bearer token (EDGE_PURGE_TOKEN). */
  readonly purgeToken: string | undefined;
  /** The most tags one purge request names (EDGE_PURGE_MAX_TAGS). */
  readonly purgeMaxTags: number;
  /** The most bytes of tags one purge request carries (EDGE_PURGE_MAX_BYTES). */
  readonly purgeMaxBytes: number;
  /** Events read from the outbox for one round of purges (EDGE_PURGE_BATCH_EVENTS). */
  readonly purgeBatchEvents: number;
}

export interface ClientNameLimits {
  /** Distinct client names kept (CLIENT_NAMES_MAX); later ones are `other` until a restart. */
  readonly maxNames: number;
  /** Names kept from the start, whoever sends them (CLIENT_NAMES); they count in `maxNames`. */
  readonly listed: readonly string[];
  /** New names callers without a valid token may take (CLIENT_NAMES_ANONYMOUS_MAX), in `maxNames`. */
  readonly anonymousNames: number;
  /** Distinct versions kept per name (CLIENT_VERSIONS_MAX); later ones are `other`. */
  readonly maxVersionsPerName: number;
}

export interface UsageSettings {
  /** Days of usage kept in the database (USAGE_RETENTION_DAYS). */
  readonly retentionDays: number;
  /** How often this process writes what it counted (USAGE_FLUSH_INTERVAL_MS). */
  readonly flushIntervalMs: number;
  /**
   * Distinct counts (a document's or a route's, per client name and version) held in memory between
   * two writes (USAGE_BUFFER_ENTRIES); 0 turns the recording off.
   */
  readonly bufferEntries: number;
}

/** Request and document limits: defaults that operators may tighten or loosen. */
export interface Limits {
  readonly bodyBytes: number;
  readonly requestTimeoutMs: number;
  /** How long a request's line and headers may take to arrive (HEADERS_TIMEOUT_MS). */
  readonly headersTimeoutMs: number;
  /** Connections one address may hold open, of every kind (MAX_CONNECTIONS_PER_CLIENT). */
  readonly connectionsPerClient: number;
  readonly graphqlDepth: number;
  readonly graphqlAliases: number;
  readonly graphqlTokens: number;
  readonly graphqlCost: number;
  readonly graphqlBatch: number;
  /** List items one request may resolve: the backstop behind the cost limit. */
  readonly graphqlListItems: number;
  /** Subscriptions one client (token subject, else address) may hold open, all connections together. */
  readonly subscriptionsPerClient: number;
  /** WebSockets one client may hold open. */
  readonly socketsPerClient: number;
  /** What a live connection may leave unread before it is closed (SUBSCRIBER_BUFFER_BYTES). */
  readonly subscriberBufferBytes: number;
  /** What parsed GraphQL documents may take on the heap (estimated, see src/graphql/documents.ts). */
  readonly documentCacheBytes: number;
  /** What the documents registered by automatic persisted queries may take. */
  readonly persistedQueriesBytes: number;
  /** What the answers of introspection-only queries kept in memory may take (estimated). */
  readonly introspectionCacheBytes: number;
  /** The longest error message sent (UTF-8 bytes): longer ones are cut. */
  readonly errorMessageBytes: number;
  /** The most items one refusal lists (unknown properties, a refused operation's errors). */
  readonly errorListItems: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const booleanString = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1');

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

/** The default body limit: 100 KiB. */
export const DEFAULT_BODY_BYTES = 100 * 1024;

const positiveInt = (fallback: number) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .default(fallback);

/** `a, b` → `['a', 'b']`; an empty entry is dropped. */
const commaList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  );

/** `https://app.example.com, http://localhost:5173` → each entry checked to be an origin. */
const corsOrigins = commaList.superRefine((entries, ctx) => {
  if (entries.includes('*') && entries.length > 1) {
    ctx.addIssue({ code: 'custom', message: 'is either * alone or a list of origins' });
  }
  for (const entry of entries) {
    if (entry !== '*' && !isOrigin(entry)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${entry}" is not an origin: write scheme://host[:port], e.g. https://app.example.com, with no path or trailing slash`,
      });
    }
  }
});

function isOrigin(entry: string): boolean {
  try {
    const url = new URL(entry);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry;
  } catch {
    return false;
  }
}

const envSchema = z.object({
  PORT: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0-65535')
    .max(65535, 'must be 0-65535')
    .default(4000),
  HOST: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
  NODE_ENV: z.string().optional(),
  DATABASE_URL: z
    .string()
    .trim()
    .default('file:./data/petstore.db')
    .refine((url) => /^(file:|postgres(ql)?:\/\/)/.test(url), {
      message: 'must start with file: (SQLite) or postgresql:// (PostgreSQL)',
    }),
  SEED: booleanString.optional(),
  AUTH_JWT_SECRET: optionalText,
  AUTH_JWKS_URL: z.url({ message: 'must be an http(s) URL' }).optional(),
  AUTH_ISSUER: optionalText,
  AUTH_AUDIENCE: optionalText,
  AUTH_TOKEN_CACHE_BYTES: positiveInt(1024 * 1024),
  PET_BY_ID_SUNSET: z.iso
    .datetime({ offset: true, message: 'must be an RFC 3339 date-time, e.g. 2027-06-30T00:00:00Z' })
    .default('2027-06-30T00:00:00Z')
    .transform((value) => new Date(value)),
  RATE_LIMIT_PER_MINUTE: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .default(1200),
  RATE_LIMIT_COST_PER_MINUTE: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .default(100_000),
  RATE_LIMIT_MAX_CLIENTS: positiveInt(100_000),
  BODY_LIMIT_BYTES: positiveInt(DEFAULT_BODY_BYTES),
  REQUEST_TIMEOUT_MS: positiveInt(10_000),
  HEADERS_TIMEOUT_MS: positiveInt(5000).refine((ms) => ms <= 60_000, {
    message: 'must be at most 60000 (a minute)',
  }),
  MAX_CONNECTIONS_PER_CLIENT: positiveInt(256),
  GRAPHQL_MAX_DEPTH: positiveInt(10),
  GRAPHQL_MAX_ALIASES: positiveInt(20),
  GRAPHQL_MAX_TOKENS: positiveInt(2000),
  GRAPHQL_MAX_COST: positiveInt(5000),
  GRAPHQL_MAX_BATCH: positiveInt(10),
  GRAPHQL_MAX_LIST_ITEMS: positiveInt(2000),
  MAX_SUBSCRIPTIONS_PER_CLIENT: positiveInt(100),
  MAX_SOCKETS_PER_CLIENT: positiveInt(20),
  SUBSCRIBER_BUFFER_BYTES: positiveInt(1024 * 1024),
  GRAPHQL_DOCUMENT_CACHE_BYTES: positiveInt(32 * 1024 * 1024),
  PERSISTED_QUERIES_CACHE_BYTES: positiveInt(16 * 1024 * 1024),
  GRAPHQL_INTROSPECTION_CACHE_BYTES: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .default(4 * 1024 * 1024),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  SHUTDOWN_TIMEOUT_MS: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0-600000')
    .max(600_000, 'must be 0-600000')
    .default(10_000),
  CORS_ORIGINS: corsOrigins,
  REDIS_URL: z
    .string()
    .trim()
    .refine((url) => /^rediss?:\/\/\S+$/.test(url), {
      message: 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379',
    })
    .optional(),
  DATABASE_POOL_SIZE: positiveInt(10),
  POSTGRES_STATEMENT_CACHE_SIZE: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .default(100),
  RESPONSE_CACHE_TTL_MS: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .default(60_000),
  PERSISTED_OPERATIONS_ONLY: z
    .string()
    .trim()
    .refine((path) => existsSync(path), {
      message: 'must be the path of a persisted-operations manifest (JSON) that exists',
    })
    .optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ message: 'must be an http(s) URL' }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ message: 'must be an http(s) URL' }).optional(),
  // OTLP over HTTP only: a collector's gRPC port (4317) has an HTTP twin (4318).
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(['http/protobuf', 'http/json']).optional(),
  OTEL_SDK_DISABLED: booleanString.optional(),
  IDEMPOTENCY_KEY_TTL_HOURS: positiveInt(24).refine((hours) => hours <= 24 * 365, {
    message: 'must be at most 8760 (a year)',
  }),
  IDEMPOTENCY_RECORD_MAX_BYTES: positiveInt(16 * 1024).refine((bytes) => bytes >= 4096, {
    message: 'must be 4096 or more (refusals are recorded too)',
  }),
  ERROR_MESSAGE_MAX_BYTES: positiveInt(512).refine((bytes) => bytes >= 128 && bytes <= 4096, {
    message: 'must be 128-4096',
  }),
  ERROR_LIST_MAX: positiveInt(5).refine((items) => items <= 20, { message: 'must be 1-20' }),
  RESPONSE_CACHE_MAX_ENTRY_BYTES: positiveInt(128 * 1024),
  RESPONSE_CACHE_MAX_BYTES: positiveInt(64 * 1024 * 1024),
  RESPONSE_CACHE_EVICT_CHUNK: positiveInt(500).refine((entries) => entries <= 5000, {
    message: 'must be 1-5000 (Lua takes a few thousand arguments at most)',
  }),
  CLIENT_NAMES_MAX: positiveInt(50),
  CLIENT_NAMES: commaList.refine(
    (names) => names.every((name) => /^[\x20-\x7e]{1,64}$/.test(name)),
    {
      message: 'must be names of 1-64 printable ASCII characters, separated by commas',
    },
  ),
  CLIENT_NAMES_ANONYMOUS_MAX: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .default(10),
  CLIENT_VERSIONS_MAX: positiveInt(20),
  USAGE_RETENTION_DAYS: positiveInt(30).refine((days) => days <= 3660, {
    message: 'must be at most 3660 (ten years)',
  }),
  USAGE_FLUSH_INTERVAL_MS: positiveInt(10_000).refine((ms) => ms <= 3_600_000, {
    message: 'must be at most 3600000 (an hour)',
  }),
  USAGE_BUFFER_ENTRIES: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .default(10_000),
  EDGE_CACHE_TAGS: booleanString.optional(),
  EDGE_CACHE_MAX_AGE_S: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0-31536000')
    .max(31_536_000, 'must be 0-31536000')
    .default(0),
  EDGE_PURGE_URL: z
    .url({ message: 'must be an http(s) URL, e.g. http://127.0.0.1:6081/' })
    .refine((url) => /^https?:\/\//.test(url), {
      message: 'must be an http(s) URL, e.g. http://127.0.0.1:6081/',
    })
    .optional(),
  EDGE_PURGE_KIND: z
    .enum(['varnish', 'fastly', 'cloudflare'], {
      message: 'must be varnish, fastly or cloudflare',
    })
    .default('varnish'),
  EDGE_PURGE_TOKEN: optionalText,
  // Fastly takes 256 keys a request, Cloudflare 100 tags; Varnish a header of 8 KiB by default.
  EDGE_PURGE_MAX_TAGS: positiveInt(100).refine((tags) => tags <= 256, {
    message: 'must be 1-256 (Fastly takes 256 keys a request at most)',
  }),
  EDGE_PURGE_MAX_BYTES: positiveInt(4096).refine((bytes) => bytes >= 256 && bytes <= 65_536, {
    message: 'must be 256-65536',
  }),
  EDGE_PURGE_BATCH_EVENTS: positiveInt(500).refine((events) => events <= 10_000, {
    message: 'must be 1-10000',
  }),
  EVENT_RETENTION_HOURS: positiveInt(24).refine((hours) => hours <= 24 * 365, {
    message: 'must be at most 8760 (a year)',
  }),
  EVENT_BUFFER_SIZE: positiveInt(10_000).refine((size) => size <= 1_000_000, {
    message: 'must be at most 1000000',
  }),
});

/**
 * NODE_ENV values that keep the development rules (a generated secret, a token on the pages);
 * anything else (`production`, `staging`, `prod`, …) gets production rules.
 */
const developmentEnvironments = new Set([undefined, 'development', 'test']);

/** The shortest HS256 secret production accepts: the hash's size (RFC 7518 §3.2). */
const MIN_SECRET_BYTES = 32;

function parseDatabaseUrl(
  url: string,
  poolSize: number,
  statementCacheSize: number,
): DatabaseConfig {
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length);
    return { provider: 'sqlite', url, file: resolve(path) };
  }
  const schema = new URL(url).searchParams.get('schema') ?? undefined;
  return {
    provider: 'postgresql',
    url,
    schema,
    poolSize,
    statementCacheSize,
  };
}

/**
 * Reads and validates the environment once. Empty variables count as unset, so a
 * `.env` line like `AUTH_JWT_SECRET=` means "not configured".
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `  ${issue.path.join('.')}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const vars = parsed.data;
  const production = !developmentEnvironments.has(vars.NODE_ENV);
  const secret = vars.AUTH_JWT_SECRET;
  // The secret is not used when a JWKS URL is set.
  if (production && secret && !vars.AUTH_JWKS_URL && Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
    throw new ConfigError(
      `Invalid configuration:\n  AUTH_JWT_SECRET: must be at least ${MIN_SECRET_BYTES} bytes in production (NODE_ENV=${vars.NODE_ENV}); e.g. openssl rand -base64 32`,
    );
  }
  if (vars.CLIENT_NAMES.length > vars.CLIENT_NAMES_MAX) {
    throw new ConfigError(
      `Invalid configuration:\n  CLIENT_NAMES: lists ${vars.CLIENT_NAMES.length} names, more than CLIENT_NAMES_MAX (${vars.CLIENT_NAMES_MAX}); raise CLIENT_NAMES_MAX or list fewer`,
    );
  }
  if (vars.EDGE_PURGE_URL && vars.EDGE_PURGE_KIND !== 'varnish' && !vars.EDGE_PURGE_TOKEN) {
    throw new ConfigError(
      `Invalid configuration:\n  EDGE_PURGE_TOKEN: must be set when EDGE_PURGE_KIND is ${vars.EDGE_PURGE_KIND} (its API key or token)`,
    );
  }
  const database = parseDatabaseUrl(
    vars.DATABASE_URL,
    vars.DATABASE_POOL_SIZE,
    vars.POSTGRES_STATEMENT_CACHE_SIZE,
  );
  return Object.freeze({
    port: vars.PORT,
    host: vars.HOST,
    production,
    database,
    seed: vars.SEED ?? true,
    auth: Object.freeze({
      jwtSecret: vars.AUTH_JWT_SECRET,
      jwksUrl: vars.AUTH_JWKS_URL,
      issuer: vars.AUTH_ISSUER,
      audience: vars.AUTH_AUDIENCE,
      tokenCacheBytes: vars.AUTH_TOKEN_CACHE_BYTES,
    }),
    petByIdSunset: vars.PET_BY_ID_SUNSET,
    rateLimitPerMinute: vars.RATE_LIMIT_PER_MINUTE,
    rateLimitCostPerMinute: vars.RATE_LIMIT_COST_PER_MINUTE,
    rateLimitMaxClients: vars.RATE_LIMIT_MAX_CLIENTS,
    logLevel: vars.LOG_LEVEL,
    limits: Object.freeze({
      bodyBytes: vars.BODY_LIMIT_BYTES,
      requestTimeoutMs: vars.REQUEST_TIMEOUT_MS,
      headersTimeoutMs: vars.HEADERS_TIMEOUT_MS,
      connectionsPerClient: vars.MAX_CONNECTIONS_PER_CLIENT,
      graphqlDepth: vars.GRAPHQL_MAX_DEPTH,
      graphqlAliases: vars.GRAPHQL_MAX_ALIASES,
      graphqlTokens: vars.GRAPHQL_MAX_TOKENS,
      graphqlCost: vars.GRAPHQL_MAX_COST,
      graphqlBatch: vars.GRAPHQL_MAX_BATCH,
      graphqlListItems: vars.GRAPHQL_MAX_LIST_ITEMS,
      subscriptionsPerClient: vars.MAX_SUBSCRIPTIONS_PER_CLIENT,
      socketsPerClient: vars.MAX_SOCKETS_PER_CLIENT,
      subscriberBufferBytes: vars.SUBSCRIBER_BUFFER_BYTES,
      documentCacheBytes: vars.GRAPHQL_DOCUMENT_CACHE_BYTES,
      persistedQueriesBytes: vars.PERSISTED_QUERIES_CACHE_BYTES,
      introspectionCacheBytes: vars.GRAPHQL_INTROSPECTION_CACHE_BYTES,
      errorMessageBytes: vars.ERROR_MESSAGE_MAX_BYTES,
      errorListItems: vars.ERROR_LIST_MAX,
    }),
    shutdownTimeoutMs: vars.SHUTDOWN_TIMEOUT_MS,
    corsOrigins: Object.freeze(vars.CORS_ORIGINS),
    redisUrl: vars.REDIS_URL,
    responseCacheTtlMs: vars.RESPONSE_CACHE_TTL_MS,
    persistedOperationsOnly:
      vars.PERSISTED_OPERATIONS_ONLY && resolve(vars.PERSISTED_OPERATIONS_ONLY),
    tracing:
      (vars.OTEL_EXPORTER_OTLP_ENDPOINT ?? vars.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) !== undefined &&
      vars.OTEL_SDK_DISABLED !== true,
    idempotencyKeyTtlHours: vars.IDEMPOTENCY_KEY_TTL_HOURS,
    idempotencyRecordMaxBytes: vars.IDEMPOTENCY_RECORD_MAX_BYTES,
    responseCacheMaxEntryBytes: vars.RESPONSE_CACHE_MAX_ENTRY_BYTES,
    responseCacheMaxBytes: vars.RESPONSE_CACHE_MAX_BYTES,
    responseCacheEvictChunk: vars.RESPONSE_CACHE_EVICT_CHUNK,
    edge: Object.freeze({
      tags: vars.EDGE_CACHE_TAGS ?? true,
      maxAgeS: vars.EDGE_CACHE_MAX_AGE_S,
      purgeUrl: vars.EDGE_PURGE_URL,
      purgeKind: vars.EDGE_PURGE_KIND,
      purgeToken: vars.EDGE_PURGE_TOKEN,
      purgeMaxTags: vars.EDGE_PURGE_MAX_TAGS,
      purgeMaxBytes: vars.EDGE_PURGE_MAX_BYTES,
      purgeBatchEvents: vars.EDGE_PURGE_BATCH_EVENTS,
    }),
    clientNames: Object.freeze({
      maxNames: vars.CLIENT_NAMES_MAX,
      listed: Object.freeze(vars.CLIENT_NAMES),
      anonymousNames: vars.CLIENT_NAMES_ANONYMOUS_MAX,
      maxVersionsPerName: vars.CLIENT_VERSIONS_MAX,
    }),
    usage: Object.freeze({
      retentionDays: vars.USAGE_RETENTION_DAYS,
      flushIntervalMs: vars.USAGE_FLUSH_INTERVAL_MS,
      bufferEntries: vars.USAGE_BUFFER_ENTRIES,
    }),
    events: Object.freeze({
      retentionHours: vars.EVENT_RETENTION_HOURS,
      bufferSize: vars.EVENT_BUFFER_SIZE,
    }),
  });
}

/** Loads `./.env` into `process.env` when present; real environment variables win. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
