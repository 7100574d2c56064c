import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { PrismaClient as PostgresPrismaClient } from '../generated/postgresql/client.js';
import { PrismaClient } from '../generated/sqlite/client.js';
import { type ConnectionRules, RuledAdapterFactory } from './adapter.js';
import { DatabaseClosedError } from './errors.js';
import { type RawSql, statementsOn } from './raw-sql.js';
import { prepareSqliteFile } from './sqlite-file.js';
import { statementNames } from './statement-cache.js';
import { oneConnection } from './transaction.js';

/**
 * The Prisma client type used across the code base. Both variants have the same API; the code is
 * typed against the SQLite one and the PostgreSQL client is cast to it once, below.
 */
export type Db = PrismaClient;

/**
 * The SQL dialect behind a client, for the few statements Prisma cannot express (a conditional
 * write that reports what it changed): the domain context carries it beside the client.
 */
export type SqlDialect = DatabaseConfig['provider'];

/**
 * The database: Prisma's client, which every transaction goes through, and raw SQL on its own
 * (`RawSql`: one statement committed on its own, sent straight to the connection the client
 * opened, which keeps the connection rules below) for what Prisma's queries cannot express (an
 * idempotency key's claim, an order on PostgreSQL).
 * Transactions are Prisma's interactive ones (src/db/transaction.ts). The driver adapter under
 * the client keeps the connection rules (src/db/adapter.ts): SQLite's pragmas and turns, the
 * statement counter, no connection once closed.
 */
export interface Database extends RawSql {
  readonly prisma: Db;
  readonly dialect: SqlDialect;
  readonly config: DatabaseConfig;
  /** SQL statements sent since start (a monotonic counter: tests and benchmarks read deltas). */
  statementCount(): number;
  /** Ends the connections; later queries fail. Calling it again waits for the first call. */
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /**
   * How long a transaction may wait for a connection and then run (REQUEST_TIMEOUT_MS and one
   * tick of the time limit: src/limits/time-limit.ts): no transaction outlives its request by more.
   * On SQLite it is also how long a statement waits for another connection's lock.
   */
  transactionTimeoutMs: number;
}

/** Transactions that are not part of a request (loading sample or bulk data) get this long. */
export const BULK_TRANSACTION_MS = 60_000;
export const bulkTransaction = { maxWait: BULK_TRANSACTION_MS, timeout: BULK_TRANSACTION_MS };

/**
 * The embedded database's durability, a product decision: write-ahead logging with
 * `synchronous=NORMAL`. A crash or `kill -9` of the process loses nothing that was committed; a
 * power loss or an operating-system crash may lose the last commits (never corrupt the file).
 * Writers no longer wait for readers, and each commit costs no sync of the log. Whoever needs
 * every commit to survive a power loss runs PostgreSQL.
 */
const SQLITE_PRAGMAS = ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = NORMAL'];

/** SQLite: its pragmas, and one connection (statements outside transactions wait their turn). */
const SQLITE_RULES: ConnectionRules = { pragmas: SQLITE_PRAGMAS, oneConnection: true };
const POSTGRES_RULES: ConnectionRules = { pragmas: [], oneConnection: false };

export interface AdapterFactory {
  readonly factory: RuledAdapterFactory;
  /** Ends the connection pool (Prisma leaves a pool it was given open). */
  close(): Promise<void>;
}

/**
 * The driver adapter for a configuration, with its connection rules (and `counting`: the statement
 * counter, refusal once closed); also used by the migration runner.
 */
export function createAdapterFactory(
  config: DatabaseConfig,
  lockTimeoutMs = BULK_TRANSACTION_MS,
  counting: Pick<ConnectionRules, 'onStatement' | 'isClosed'> = {},
): AdapterFactory {
  if (config.provider === 'sqlite') {
    prepareSqliteFile(config.file);
    const factory = new PrismaBetterSqlite3({ url: config.file, timeout: lockTimeoutMs });
    return {
      factory: new RuledAdapterFactory(factory, { ...SQLITE_RULES, ...counting }),
      close: async () => {},
    };
  }
  const url = new URL(config.url);
  url.searchParams.delete('schema');
  const pool = new pg.Pool({
    connectionString: url.toString(),
    max: config.poolSize,
    // Raw SQL (tests, health checks) must see the same schema as Prisma's queries.
    // No statement outlives its request's time limit (the same bound as transactions).
    options: [
      config.schema ? `-c search_path="${config.schema}"` : '',
      `-c statement_timeout=${lockTimeoutMs}`,
    ]
      .filter(Boolean)
      .join(' '),
  });
  // An idle connection that the server ends (a restart, `pg_terminate_backend`) is an 'error'
  // event on the pool, which would crash the process without a listener. pg has already dropped
  // that connection; the next query opens a new one, and a query that fails is answered 503.
  // The adapter adds its own listener only while connected, so this one is always there.
  pool.on('error', () => {});
  // A connection cut while checked out can also emit 'error' after the query that saw it has
  // released its own listener (pg emits once for the query and once for the socket's end); with
  // no listener left that is an uncaught exception. Every connection keeps one for its lifetime.
  pool.on('connect', (connection) => connection.on('error', () => {}));
  const factory = new PrismaPg(pool, {
    schema: config.schema,
    ...(config.statementCacheSize > 0
      ? { statementNameGenerator: statementNames(config.statementCacheSize) }
      : {}),
  });
  return {
    factory: new RuledAdapterFactory(factory, { ...POSTGRES_RULES, ...counting }),
    close: () => pool.end(),
  };
}

export function openDatabase(config: DatabaseConfig, options: DatabaseOptions): Database {
  let statements = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  const { factory: adapter, close } = createAdapterFactory(config, options.transactionTimeoutMs, {
    onStatement: () => {
      statements++;
    },
    isClosed: () => closed,
  });
  // Instead of Prisma's 2 s / 5 s defaults, so that a burst of orders on one pet queues instead
  // of failing, and never beyond the request's own limit.
  const transactionOptions = {
    maxWait: options.transactionTimeoutMs,
    timeout: options.transactionTimeoutMs,
  };
  const prisma =
    config.provider === 'sqlite'
      ? new PrismaClient({ adapter, transactionOptions })
      : (new PostgresPrismaClient({ adapter, transactionOptions }) as unknown as Db);
  if (config.provider === 'sqlite') oneConnection(prisma, () => adapter.openTransaction());
  return {
    prisma,
    dialect: config.provider,
    config,
    async query(statement) {
      // Prisma would reconnect: refused here as the adapter refuses a connection once closed.
      if (closed) throw new DatabaseClosedError();
      if (!adapter.connection()) await prisma.$connect();
      const connection = adapter.connection();
      if (!connection) throw new DatabaseClosedError();
      return statementsOn(connection, config.provider)(statement);
    },
    statementCount: () => statements,
    close: () => {
      closed = true;
      closing ??= prisma.$disconnect().then(close);
      return closing;
    },
  };
}
