import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { loadPersistedManifest } from '../src/persisted/operations.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      seed: true,
      rateLimitPerMinute: 1200,
      rateLimitCostPerMinute: 100_000,
      logLevel: 'info',
      idempotencyKeyTtlHours: 24,
      database: { provider: 'sqlite', url: 'file:./data/petstore.db' },
    });
    expect(config.petByIdSunset.toISOString()).toBe('2027-06-30T00:00:00.000Z');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads PostgreSQL URLs, their schema, the pool size and the statements kept prepared', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://u@db:5432/shop?schema=store' });
    expect(config.database).toEqual({
      provider: 'postgresql',
      url: 'postgresql://u@db:5432/shop?schema=store',
      schema: 'store',
      poolSize: 10,
      statementCacheSize: 100,
    });
    const sized = loadConfig({
      DATABASE_URL: 'postgresql://db/shop',
      DATABASE_POOL_SIZE: '3',
      POSTGRES_STATEMENT_CACHE_SIZE: '0',
    });
    expect(sized.database).toMatchObject({ poolSize: 3, statementCacheSize: 0 });
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgresql://db/shop', POSTGRES_STATEMENT_CACHE_SIZE: '-1' }),
    ).toThrow(/POSTGRES_STATEMENT_CACHE_SIZE: must be 0 or more/);
  });

  it('reads REDIS_URL and refuses anything but a Redis URL', () => {
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379' }).redisUrl).toBe('redis://cache:6379');
    expect(loadConfig({}).redisUrl).toBeUndefined();
    expect(() => loadConfig({ REDIS_URL: 'http://cache' })).toThrow(/REDIS_URL: must be a redis/);
  });

  it('reads IDEMPOTENCY_KEY_TTL_HOURS: whole hours, at least 1', () => {
    expect(loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '48' }).idempotencyKeyTtlHours).toBe(48);
    expect(() => loadConfig({ IDEMPOTENCY_KEY_TTL_HOURS: '0' })).toThrow(
      /IDEMPOTENCY_KEY_TTL_HOURS: must be 1 or more/,
    );
  });

  it('keeps the development rules only while NODE_ENV is unset, development or test', () => {
    for (const value of [undefined, 'development', 'test'])
      expect(loadConfig({ NODE_ENV: value }).production, String(value)).toBe(false);
    const secret = 'x'.repeat(32);
    for (const value of ['production', 'staging', 'prod', 'Production', 'TEST'])
      expect(loadConfig({ NODE_ENV: value, AUTH_JWT_SECRET: secret }).production, value).toBe(true);
  });

  it('refuses an HS256 secret shorter than 32 bytes in production, naming AUTH_JWT_SECRET', () => {
    const load = (env: Record<string, string>) => () => loadConfig({ NODE_ENV: 'staging', ...env });
    expect(load({ AUTH_JWT_SECRET: 'abc' })).toThrow(ConfigError);
    expect(load({ AUTH_JWT_SECRET: 'é'.repeat(15) })).toThrow(
      /AUTH_JWT_SECRET: must be at least 32 bytes in production/,
    );
    // 32 bytes, or a secret that is not used (a JWKS URL), or development: accepted.
    expect(load({ AUTH_JWT_SECRET: 'é'.repeat(16) })).not.toThrow();
    expect(
      load({ AUTH_JWT_SECRET: 'abc', AUTH_JWKS_URL: 'https://id.example.com/jwks' }),
    ).not.toThrow();
    expect(() => loadConfig({ AUTH_JWT_SECRET: 'abc' })).not.toThrow();
  });

  it('bounds client names and usage as configured, 0 turning the usage recording off', () => {
    expect(loadConfig({})).toMatchObject({
      clientNames: { maxNames: 50, maxVersionsPerName: 20, listed: [], anonymousNames: 10 },
      usage: { retentionDays: 30, flushIntervalMs: 10_000, bufferEntries: 10_000 },
    });
    expect(
      loadConfig({
        CLIENT_NAMES_MAX: '5',
        CLIENT_NAMES: ' shop-web, shop-ios ,',
        CLIENT_NAMES_ANONYMOUS_MAX: '0',
        CLIENT_VERSIONS_MAX: '2',
        USAGE_RETENTION_DAYS: '90',
        USAGE_FLUSH_INTERVAL_MS: '500',
        USAGE_BUFFER_ENTRIES: '0',
      }),
    ).toMatchObject({
      clientNames: {
        maxNames: 5,
        maxVersionsPerName: 2,
        listed: ['shop-web', 'shop-ios'],
        anonymousNames: 0,
      },
      usage: { retentionDays: 90, flushIntervalMs: 500, bufferEntries: 0 },
    });
    expect(() => loadConfig({ CLIENT_NAMES_MAX: '1', CLIENT_NAMES: 'a,b' })).toThrow(
      'CLIENT_NAMES: lists 2 names, more than CLIENT_NAMES_MAX (1); raise CLIENT_NAMES_MAX or list fewer',
    );
    expect(() => loadConfig({ CLIENT_NAMES: `web,${'x'.repeat(65)}` })).toThrow(
      /CLIENT_NAMES: must be names of 1-64 printable ASCII characters, separated by commas/,
    );
    expect(() => loadConfig({ CLIENT_NAMES_MAX: '0', USAGE_FLUSH_INTERVAL_MS: '0' })).toThrow(
      /CLIENT_NAMES_MAX: must be 1 or more\n {2}USAGE_FLUSH_INTERVAL_MS: must be 1 or more/,
    );
  });

  it('names every bad variable in one clear error', () => {
    const load = () =>
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        SEED: 'maybe',
        PET_BY_ID_SUNSET: 'soon',
        LOG_LEVEL: 'loud',
      });
    expect(load).toThrow(ConfigError);
    const message = (() => {
      try {
        load();
      } catch (error) {
        return (error as Error).message;
      }
    })();
    for (const name of ['PORT', 'DATABASE_URL', 'SEED', 'PET_BY_ID_SUNSET', 'LOG_LEVEL']) {
      expect(message).toContain(name);
    }
  });

  it('reads RATE_LIMIT_COST_PER_MINUTE: 0 turns the cost budget off, a negative is refused', () => {
    expect(loadConfig({ RATE_LIMIT_COST_PER_MINUTE: '0' }).rateLimitCostPerMinute).toBe(0);
    expect(() => loadConfig({ RATE_LIMIT_COST_PER_MINUTE: '-1' })).toThrow(
      /RATE_LIMIT_COST_PER_MINUTE: must be 0 or more/,
    );
    expect(() => loadConfig({ RATE_LIMIT_COST_PER_MINUTE: 'lots' })).toThrow(
      /RATE_LIMIT_COST_PER_MINUTE: must be a number/,
    );
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', AUTH_JWT_SECRET: '' })).toMatchObject({
      port: 4000,
      auth: { jwtSecret: undefined },
    });
  });

  it('reads CORS_ORIGINS as a list of origins, none by default', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(
      loadConfig({ CORS_ORIGINS: ' https://app.example.com ,http://localhost:5173,' }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });

  it.each([
    ['https://app.example.com/', '"https://app.example.com/" is not an origin'],
    ['app.example.com', '"app.example.com" is not an origin'],
    ['https://app.example.com/path', 'is not an origin'],
    ['ftp://files.example.com', 'is not an origin'],
    ['*, https://app.example.com', 'is either * alone or a list of origins'],
  ])('refuses CORS_ORIGINS=%j, naming the variable', (value, problem) => {
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(
      new RegExp(`CORS_ORIGINS: .*${problem.replace(/[.*"/]/g, '\\$&')}`),
    );
  });

  it('traces when an OTLP endpoint is set, over HTTP only', () => {
    expect(loadConfig({}).tracing).toBe(false);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing).toBe(true);
    const tracesOnly = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' };
    expect(loadConfig(tracesOnly).tracing).toBe(true);
    expect(loadConfig({ ...tracesOnly, OTEL_SDK_DISABLED: 'true' }).tracing).toBe(false);
    expect(() =>
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
  });

  it('.env.example lists every variable with its default', () => {
    const example = parseEnv(readFileSync(new URL('../.env.example', import.meta.url), 'utf8'));
    expect(Object.keys(example).sort()).toEqual(
      [
        'PORT',
        'HOST',
        'DATABASE_URL',
        'SEED',
        'AUTH_JWT_SECRET',
        'AUTH_JWKS_URL',
        'AUTH_ISSUER',
        'AUTH_AUDIENCE',
        'AUTH_TOKEN_CACHE_BYTES',
        'NODE_ENV',
        'CORS_ORIGINS',
        'PET_BY_ID_SUNSET',
        'RATE_LIMIT_PER_MINUTE',
        'RATE_LIMIT_COST_PER_MINUTE',
        'RATE_LIMIT_MAX_CLIENTS',
        'BODY_LIMIT_BYTES',
        'REQUEST_TIMEOUT_MS',
        'HEADERS_TIMEOUT_MS',
        'MAX_CONNECTIONS_PER_CLIENT',
        'GRAPHQL_MAX_DEPTH',
        'GRAPHQL_MAX_ALIASES',
        'GRAPHQL_MAX_TOKENS',
        'GRAPHQL_MAX_COST',
        'GRAPHQL_MAX_BATCH',
        'GRAPHQL_MAX_LIST_ITEMS',
        'REDIS_URL',
        'DATABASE_POOL_SIZE',
        'POSTGRES_STATEMENT_CACHE_SIZE',
        'MAX_SUBSCRIPTIONS_PER_CLIENT',
        'MAX_SOCKETS_PER_CLIENT',
        'SUBSCRIBER_BUFFER_BYTES',
        'GRAPHQL_DOCUMENT_CACHE_BYTES',
        'PERSISTED_QUERIES_CACHE_BYTES',
        'GRAPHQL_INTROSPECTION_CACHE_BYTES',
        'RESPONSE_CACHE_TTL_MS',
        'PERSISTED_OPERATIONS_ONLY',
        'IDEMPOTENCY_KEY_TTL_HOURS',
        'IDEMPOTENCY_RECORD_MAX_BYTES',
        'ERROR_MESSAGE_MAX_BYTES',
        'ERROR_LIST_MAX',
        'RESPONSE_CACHE_MAX_ENTRY_BYTES',
        'RESPONSE_CACHE_MAX_BYTES',
        'RESPONSE_CACHE_EVICT_CHUNK',
        'EDGE_CACHE_TAGS',
        'EDGE_CACHE_MAX_AGE_S',
        'EDGE_PURGE_URL',
        'EDGE_PURGE_KIND',
        'EDGE_PURGE_TOKEN',
        'EDGE_PURGE_MAX_TAGS',
        'EDGE_PURGE_MAX_BYTES',
        'EDGE_PURGE_BATCH_EVENTS',
        'CLIENT_NAMES_MAX',
        'CLIENT_NAMES',
        'CLIENT_NAMES_ANONYMOUS_MAX',
        'CLIENT_VERSIONS_MAX',
        'USAGE_RETENTION_DAYS',
        'USAGE_FLUSH_INTERVAL_MS',
        'USAGE_BUFFER_ENTRIES',
        'EVENT_RETENTION_HOURS',
        'EVENT_BUFFER_SIZE',
        'LOG_LEVEL',
        'SHUTDOWN_TIMEOUT_MS',
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
        'OTEL_EXPORTER_OTLP_PROTOCOL',
        'OTEL_EXPORTER_OTLP_HEADERS',
        'OTEL_SERVICE_NAME',
        'OTEL_RESOURCE_ATTRIBUTES',
        'OTEL_TRACES_SAMPLER',
        'OTEL_TRACES_SAMPLER_ARG',
      ].sort(),
    );
    expect(loadConfig(example)).toEqual(loadConfig({}));
  });

  it('refuses a persisted-operations manifest that is not one as a configuration error (one line at start)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'manifest-')), 'manifest.json');
    writeFileSync(file, '["not", "a", "map"]');
    expect(() => loadPersistedManifest(file)).toThrow(ConfigError);
    writeFileSync(file, '{ broken');
    expect(() => loadPersistedManifest(file)).toThrow(
      /PERSISTED_OPERATIONS_ONLY: .* is not readable JSON/,
    );
  });
});
