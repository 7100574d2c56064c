import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { ArgType, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Database as Sqlite } from 'better-sqlite3';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { PrismaClient as PostgresPrismaClient } from '../generated/postgresql/client.js';
import { type Prisma, PrismaClient } from '../generated/sqlite/client.js';
import { inSpan, tracingEnabled } from '../tracing/hooks.js';
import { DatabaseClosedError, TransactionTimeoutError } from './errors.js';
import type { RawSql, RunStatement } from './raw-sql.js';
import { prepareSqliteFile } from './sqlite-file.js';
import { cacheStatements, statementNames } from './statement-cache.js';

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
 * The database: Prisma's client, and raw SQL straight through the driver adapter Prisma opened
 * (`RawSql`), without Prisma's client, which costs four to six times what a statement does in this
 * process: for the writes on the path of many requests that Prisma cannot express anyway (an
 * idempotency key's claim, an order). Those statements are queued, counted, refused when closed and
 * traced (one span each, as Prisma's) as every statement is; their rows hold the adapter's values.
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
   * tick of the time limit: src/http/time-limit.ts): no transaction outlives its request by more.
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

type Connect<T extends SqlMigrationAwareDriverAdapterFactory> = T['connect'];

// biome-ignore lint/suspicious/noExplicitAny: the adapters' methods, whatever their signatures
type Method = (...args: any[]) => any;

/**
 * `target` with its methods bound to it and passed through `wrap` (by name), each made once: the
 * adapters' objects are reached on the path of every statement, and a method made anew at every
 * access would be garbage at every statement.
 */
function withMethods<T extends object>(
  target: T,
  wrap: (property: string | symbol, method: Method) => Method,
): T {
  const made = new Map<string | symbol, Method>();
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      let method = made.get(property);
      if (!method) {
        method = wrap(property, value.bind(object));
        made.set(property, method);
      }
      return method;
    },
  });
}

/** A driver adapter factory whose `connect` goes through `around` (everything else as it is). */
function aroundConnect<T extends SqlMigrationAwareDriverAdapterFactory>(
  factory: T,
  around: (connect: Connect<T>) => Connect<T>,
): T {
  return withMethods(factory, (property, method) =>
    property === 'connect' ? around(method as Connect<T>) : method,
  );
}

/** A driver adapter factory whose every connection first runs `pragmas`. */
function withPragmas<T extends SqlMigrationAwareDriverAdapterFactory>(
  factory: T,
  pragmas: readonly string[],
): T {
  return aroundConnect(factory, (connect) => async () => {
    const adapter = await connect();
    for (const sql of pragmas) await adapter.queryRaw({ sql, args: [], argTypes: [] });
    return adapter;
  });
}

/**
 * A SQLite adapter factory whose connections keep up to `max` statements compiled
 * (src/db/statement-cache.ts); 0 leaves them as the adapter makes them.
 */
function keepStatementsCompiled<T extends SqlMigrationAwareDriverAdapterFactory>(
  factory: T,
  max: number,
): T {
  if (max === 0) return factory;
  return aroundConnect(factory, (connect) => async () => {
    const adapter = await connect();
    // The better-sqlite3 connection, which the adapter's types do not show.
    const { client } = adapter as unknown as { client: Sqlite };
    cacheStatements(client, max);
    return adapter;
  });
}

/** A first-come, first-served lock: `acquire` resolves with the function that releases it. */
function queue() {
  let tail: Promise<void> = Promise.resolve();
  return {
    acquire(): Promise<() => void> {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      // Released once, whatever calls it again (a commit that fails is rolled back too).
      const once = () => {
        release();
        release = () => {};
      };
      const acquired = tail.then(() => once);
      tail = tail.then(() => released);
      return acquired;
    },
  };
}

type Adapter = Awaited<ReturnType<SqlMigrationAwareDriverAdapterFactory['connect']>>;
type Transaction = Awaited<ReturnType<Adapter['startTransaction']>>;

/**
 * The SQLite adapter is one connection. It queues transactions behind each other, but runs a
 * statement sent outside any transaction at once on that same connection: inside whatever
 * transaction is open then, so that the statement would see its uncommitted rows, and a write
 * answered as done would be undone by that transaction's rollback (a request that fails, whole,
 * after it wrote: src/idempotency/). Here such statements wait their turn instead, as on a database
 * with connections of their own. Statements of a transaction go through its own object, unqueued.
 */
function outsideTransactions<T extends SqlMigrationAwareDriverAdapterFactory>(factory: T): T {
  const turns = queue();
  const inTurn = <R>(run: () => Promise<R>): Promise<R> =>
    turns.acquire().then(async (release) => {
      try {
        return await run();
      } finally {
        release();
      }
    });
  const transaction = (inner: Transaction, release: () => void): Transaction =>
    withMethods(inner, (property, method) =>
      property === 'commit' || property === 'rollback'
        ? async () => {
            try {
              return await method();
            } finally {
              release();
            }
          }
        : method,
    );
  const adapter = (inner: Adapter): Adapter =>
    withMethods(inner, (property, method) => {
      if (property === 'queryRaw' || property === 'executeRaw' || property === 'executeScript')
        return (...args: unknown[]) => inTurn(() => method(...args));
      if (property === 'startTransaction')
        return async (...args: unknown[]) => {
          const release = await turns.acquire();
          try {
            return transaction(await method(...args), release);
          } catch (error) {
            release();
            throw error;
          }
        };
      return method;
    });
  return aroundConnect(factory, (connect) => async () => adapter(await connect()));
}

export interface AdapterFactory {
  readonly factory: SqlMigrationAwareDriverAdapterFactory;
  /** Ends the connection pool (Prisma leaves a pool it was given open). */
  close(): Promise<void>;
}

/** The driver adapter for a configuration; also used by the migration runner. */
export function createAdapterFactory(
  config: DatabaseConfig,
  lockTimeoutMs = BULK_TRANSACTION_MS,
): AdapterFactory {
  if (config.provider === 'sqlite') {
    prepareSqliteFile(config.file);
    const factory = new PrismaBetterSqlite3({ url: config.file, timeout: lockTimeoutMs });
    return {
      factory: withPragmas(
        keepStatementsCompiled(outsideTransactions(factory), config.statementCacheSize),
        SQLITE_PRAGMAS,
      ),
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
  return {
    factory: new PrismaPg(pool, {
      schema: config.schema,
      ...(config.statementCacheSize > 0
        ? { statementNameGenerator: statementNames(config.statementCacheSize) }
        : {}),
    }),
    close: () => pool.end(),
  };
}

export function openDatabase(config: DatabaseConfig, options: DatabaseOptions): Database {
  let statements = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  const { factory, close } = createAdapterFactory(config, options.transactionTimeoutMs);
  // The connection Prisma opened, for `query`: the outermost adapter, so that its statements are
  // counted and, on SQLite, queued behind transactions as Prisma's own are.
  let connected: Adapter | undefined;
  const adapter = aroundConnect(
    countStatements(
      refuseWhenClosed(factory, () => closed),
      () => {
        statements++;
      },
    ),
    (connect) => async () => {
      connected = await connect();
      return connected;
    },
  );
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
  /** The connection for raw SQL, opened through Prisma on first use; refused once closed. */
  const open = async (): Promise<Adapter> => {
    if (closed) throw new DatabaseClosedError();
    if (!connected) await prisma.$connect();
    return connected as Adapter;
  };
  return {
    prisma,
    dialect: config.provider,
    config,
    async query<Row>(statement: Prisma.Sql) {
      return rowsOf<Row>(await open(), config.provider, statement);
    },
    async transaction(work) {
      return runTransaction(await open(), config.provider, options.transactionTimeoutMs, work);
    },
    statementCount: () => statements,
    close: () => {
      closed = true;
      closing ??= prisma.$disconnect().then(close);
      return closing;
    },
  };
}

/** One statement through `queryable` (the adapter or one of its transactions), as rows of objects. */
function rowsOf<Row>(
  queryable: Pick<Adapter, 'queryRaw'>,
  dialect: SqlDialect,
  statement: Prisma.Sql,
): Promise<Row[]> {
  const sql = dialect === 'sqlite' ? statement.sql : statement.text;
  const run = async () => {
    const { values } = statement;
    const result = await queryable.queryRaw({
      sql,
      args: values.map((value) => (typeof value === 'bigint' ? String(value) : value)),
      argTypes: values.map(argType),
    });
    return result.rows.map(
      (row) =>
        Object.fromEntries(result.columnNames.map((name, index) => [name, row[index]])) as Row,
    );
  };
  if (!tracingEnabled()) return run();
  // The span Prisma's instrumentation makes for its own statements (docs/tracing.md).
  const attributes = { 'db.query.text': sql, 'db.system.name': dialect };
  return inSpan('prisma:client:db_query', attributes, run, 'client') as Promise<Row[]>;
}

const COMMIT = { sql: 'COMMIT', args: [], argTypes: [] };
const ROLLBACK = { sql: 'ROLLBACK', args: [], argTypes: [] };

/** Ends a transaction as Prisma's client does: the statement, then the adapter lets it go. */
async function end(tx: Transaction, how: 'commit' | 'rollback'): Promise<void> {
  if (how === 'rollback') {
    try {
      await tx.executeRaw(ROLLBACK);
    } finally {
      await tx.rollback();
    }
    return;
  }
  try {
    await tx.executeRaw(COMMIT);
  } catch (error) {
    await tx.rollback();
    throw error;
  }
  await tx.commit();
}

/**
 * `Database.transaction`: `work` in one transaction of the adapter, begun at its first statement
 * (work that sends none, such as a keyed request that turns out to need Prisma's client, costs no
 * round trip), with the bounds Prisma's interactive transactions have here (`limitMs`, the request
 * time limit and one tick): waiting for the connection (SQLite's one, queued behind the others) and
 * then running. Past either, it is rolled back, its next statement refused, and
 * TransactionTimeoutError thrown.
 */
async function runTransaction<T>(
  adapter: Adapter,
  dialect: SqlDialect,
  limitMs: number,
  work: (query: RunStatement) => Promise<T>,
): Promise<T> {
  let begun: Promise<Transaction> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let expired = false;
  const begin = async (): Promise<Transaction> => {
    const starting = adapter.startTransaction();
    let tx: Transaction;
    try {
      tx = await Promise.race([
        starting,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new TransactionTimeoutError('waited', limitMs)), limitMs);
        }),
      ]);
    } catch (error) {
      // Started too late: let it go once it has.
      starting.then((late) => end(late, 'rollback')).catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
    timer = setTimeout(() => {
      expired = true;
      end(tx, 'rollback').catch(() => {});
    }, limitMs);
    return tx;
  };
  const query: RunStatement = async (statement) => {
    if (expired) throw new TransactionTimeoutError('ran', limitMs);
    begun ??= begin();
    return rowsOf(await begun, dialect, statement);
  };
  let value: T;
  try {
    value = await work(query);
  } catch (error) {
    const tx = await begun?.catch(() => undefined);
    clearTimeout(timer);
    if (tx && !expired) await end(tx, 'rollback').catch(() => {});
    throw error;
  }
  const tx = await begun;
  clearTimeout(timer);
  if (expired) throw new TransactionTimeoutError('ran', limitMs);
  if (tx) await end(tx, 'commit');
  return value;
}

/** How an argument of `Database.query` is sent: as Prisma's client sends it (a bigint as a string). */
function argType(value: unknown): ArgType {
  const scalarType =
    typeof value === 'bigint'
      ? 'bigint'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'int'
          : 'float'
        : typeof value === 'string'
          ? 'string'
          : 'unknown';
  return { scalarType, arity: 'scalar' };
}

/**
 * Prisma reconnects on the next query after `$disconnect()` (SQLite would simply reopen the file),
 * so a closed database refuses new connections here instead.
 */
function refuseWhenClosed<T extends SqlMigrationAwareDriverAdapterFactory>(
  factory: T,
  isClosed: () => boolean,
): T {
  return aroundConnect(
    factory,
    (connect) => () => (isClosed() ? Promise.reject(new DatabaseClosedError()) : connect()),
  );
}

/**
 * Wraps a driver adapter factory so that every SQL statement sent through it (on the connection or
 * inside a transaction) calls `onStatement`. This is how N+1 regressions are caught.
 */
function countStatements<T extends object>(target: T, onStatement: () => void): T {
  return withMethods(target, (property, method) => {
    if (property === 'queryRaw' || property === 'executeRaw')
      return (...args: unknown[]) => {
        onStatement();
        return method(...args);
      };
    if (property === 'connect' || property === 'startTransaction')
      return async (...args: unknown[]) => countStatements(await method(...args), onStatement);
    return method;
  });
}
