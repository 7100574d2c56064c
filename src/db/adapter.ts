import type {
  ConnectionInfo,
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  SqlResultSet,
  Transaction,
  TransactionOptions,
} from '@prisma/driver-adapter-utils';
import { DatabaseClosedError, TransactionEndedError } from './errors.js';

/**
 * What the database adds to a driver adapter's connections, through the adapter's public
 * interfaces (each class below implements one of them and delegates to the adapter Prisma ships).
 */
export interface ConnectionRules {
  /** Statements every new connection runs first (SQLite's durability: src/db/client.ts). */
  readonly pragmas: readonly string[];
  /**
   * One connection (SQLite): a statement sent outside any transaction waits its turn behind the
   * transaction that is open, instead of running inside it (see `Turns`).
   */
  readonly oneConnection: boolean;
  /** Called for every statement sent (on a connection or in a transaction): the N+1 tests count. */
  readonly onStatement?: () => void;
  /** Once true, no connection opens: Prisma would reconnect on the next query after `$disconnect`. */
  readonly isClosed?: () => boolean;
}

/** A driver adapter factory whose connections keep `rules`. */
export class RuledAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider: SqlMigrationAwareDriverAdapterFactory['provider'];
  readonly adapterName: string;
  private connected: RuledAdapter | undefined;

  constructor(
    private readonly inner: SqlMigrationAwareDriverAdapterFactory,
    private readonly rules: ConnectionRules,
  ) {
    this.provider = inner.provider;
    this.adapterName = inner.adapterName;
  }

  async connect(): Promise<SqlDriverAdapter> {
    this.connected = await this.opened(() => this.inner.connect());
    return this.connected;
  }

  /**
   * The connection Prisma's client opened (`connect`), until it is disposed: its statements keep
   * the rules as the client's own do (counted; on SQLite, in turn behind an open transaction).
   */
  connection(): SqlQueryable | undefined {
    return this.connected?.disposed === false ? this.connected : undefined;
  }

  /** One connection (SQLite): the transaction open on it now, which holds the turn (`Turns`). */
  openTransaction(): SqlQueryable | undefined {
    return this.connected?.open;
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return this.opened(() => this.inner.connectToShadowDb());
  }

  private async opened(open: () => Promise<SqlDriverAdapter>): Promise<RuledAdapter> {
    if (this.rules.isClosed?.()) throw new DatabaseClosedError();
    const adapter = await open();
    for (const sql of this.rules.pragmas) await adapter.queryRaw({ sql, args: [], argTypes: [] });
    return new RuledAdapter(adapter, this.rules);
  }
}

/**
 * A first-come, first-served lock over SQLite's one connection. The adapter queues transactions
 * behind each other, but runs a statement sent outside any transaction at once on that same
 * connection: inside whatever transaction is open then, so that the statement would see its
 * uncommitted rows, and a write answered as done would be undone by that transaction's rollback
 * (a request that fails, whole, after it wrote: src/idempotency/). With turns such statements wait
 * instead, as on a database with connections of their own; a transaction holds its turn from its
 * start to its commit or rollback, and its own statements go through it unqueued.
 */
class Turns {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves, in turn, with the function that ends the turn (once, whatever calls it again). */
  take(): Promise<() => void> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    let open = true;
    const once = () => {
      if (open) end();
      open = false;
    };
    const taken = this.tail.then(() => once);
    this.tail = this.tail.then(() => ended);
    return taken;
  }

  async run<R>(work: () => Promise<R>): Promise<R> {
    const end = await this.take();
    try {
      return await work();
    } finally {
      end();
    }
  }
}

class RuledAdapter implements SqlDriverAdapter {
  readonly provider: SqlDriverAdapter['provider'];
  readonly adapterName: string;
  readonly getConnectionInfo?: () => ConnectionInfo;
  private readonly turns: Turns | undefined;
  disposed = false;
  /** With turns: the transaction that holds the turn, until its commit or rollback. */
  open: RuledTransaction | undefined;

  constructor(
    private readonly inner: SqlDriverAdapter,
    private readonly rules: ConnectionRules,
  ) {
    this.provider = inner.provider;
    this.adapterName = inner.adapterName;
    this.turns = rules.oneConnection ? new Turns() : undefined;
    if (inner.getConnectionInfo) this.getConnectionInfo = inner.getConnectionInfo.bind(inner);
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    this.rules.onStatement?.();
    return this.inTurn(() => this.inner.queryRaw(query));
  }

  executeRaw(query: SqlQuery): Promise<number> {
    this.rules.onStatement?.();
    return this.inTurn(() => this.inner.executeRaw(query));
  }

  executeScript(script: string): Promise<void> {
    return this.inTurn(() => this.inner.executeScript(script));
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    const turns = this.turns;
    if (!turns)
      return new RuledTransaction(
        await this.inner.startTransaction(isolationLevel),
        this.rules,
        () => {},
      );
    const end = await turns.take();
    try {
      const transaction: RuledTransaction = new RuledTransaction(
        await this.inner.startTransaction(isolationLevel),
        this.rules,
        () => {
          if (this.open === transaction) this.open = undefined;
          end();
        },
      );
      this.open = transaction;
      return transaction;
    } catch (error) {
      end();
      throw error;
    }
  }

  dispose(): Promise<void> {
    this.disposed = true;
    return this.inner.dispose();
  }

  private inTurn<R>(work: () => Promise<R>): Promise<R> {
    return this.turns ? this.turns.run(work) : work();
  }
}

class RuledTransaction implements Transaction {
  readonly provider: Transaction['provider'];
  readonly adapterName: string;
  readonly options: TransactionOptions;
  readonly createSavepoint?: (name: string) => Promise<void>;
  readonly rollbackToSavepoint?: (name: string) => Promise<void>;
  readonly releaseSavepoint?: (name: string) => Promise<void>;
  private ended = false;

  constructor(
    private readonly inner: Transaction,
    private readonly rules: ConnectionRules,
    /** Ends the connection's turn (a no-op with many connections). */
    private readonly endTurn: () => void,
  ) {
    this.provider = inner.provider;
    this.adapterName = inner.adapterName;
    this.options = inner.options;
    // Prisma opens a savepoint for a `$transaction` inside another (src/db/transaction.ts avoids it).
    if (inner.createSavepoint) this.createSavepoint = inner.createSavepoint.bind(inner);
    if (inner.rollbackToSavepoint) this.rollbackToSavepoint = inner.rollbackToSavepoint.bind(inner);
    if (inner.releaseSavepoint) this.releaseSavepoint = inner.releaseSavepoint.bind(inner);
  }

  async queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    this.refuseOnceEnded();
    this.rules.onStatement?.();
    return this.inner.queryRaw(query);
  }

  async executeRaw(query: SqlQuery): Promise<number> {
    this.refuseOnceEnded();
    this.rules.onStatement?.();
    return this.inner.executeRaw(query);
  }

  async commit(): Promise<void> {
    this.ended = true;
    try {
      await this.inner.commit();
    } finally {
      this.endTurn();
    }
  }

  async rollback(): Promise<void> {
    this.ended = true;
    try {
      await this.inner.rollback();
    } finally {
      this.endTurn();
    }
  }

  /**
   * A statement sent once the transaction has ended (raw SQL that goes straight to it: a request's
   * work that went on past its time limit) would run on the connection outside any transaction.
   */
  private refuseOnceEnded(): void {
    if (this.ended) throw new TransactionEndedError();
  }
}
