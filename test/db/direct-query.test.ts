import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import {
  DatabaseClosedError,
  isDatabaseTimeout,
  isDatabaseUnreachable,
} from '../../src/db/errors.js';
import type { RunStatement } from '../../src/db/raw-sql.js';
import { inTransaction, rawSqlIn } from '../../src/db/transaction.js';
import { Prisma } from '../../src/generated/sqlite/client.js';
import { createTestApp, describeDb, useTestApp } from '../helpers/app.js';

const countKeys = Prisma.sql`SELECT COUNT(*) AS "keys" FROM "IdempotencyKey" WHERE "fingerprint" = ${'direct'}`;

describeDb('Database.query (one raw statement, committed on its own)', () => {
  const app = useTestApp();

  it('returns the rows by column name, and counts as a statement', async () => {
    const { database } = app();
    const statements = database.statementCount();
    const rows = await database.query<{ answer: unknown; name: unknown }>(
      Prisma.sql`SELECT ${41} + 1 AS "answer", ${'Rex'} AS "name"`,
    );
    expect(rows.map((row) => ({ ...row, answer: Number(row.answer) }))).toEqual([
      { answer: 42, name: 'Rex' },
    ]);
    expect(database.statementCount()).toBe(statements + 1);
  });

  it('never runs inside another request’s open transaction, nor sees what it has not committed', async () => {
    const { database } = app();
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    let rollBack!: () => void;
    const rolledBackWhen = new Promise<void>((resolve) => {
      rollBack = resolve;
    });
    const failing = database.prisma
      .$transaction(async (tx) => {
        await tx.$executeRaw`INSERT INTO "IdempotencyKey" ("id", "fingerprint", "expiresAt")
          VALUES (${'uncommitted'}, ${'direct'}, ${BigInt(Date.now() + 60_000)})`;
        inserted();
        await rolledBackWhen;
        throw new Error('rolled back on purpose');
      })
      .catch((error: Error) => error.message);
    await insertedYet;
    // SQLite's one connection: the statement waits for the transaction to end. PostgreSQL: its own
    // connection, which does not see the uncommitted row.
    const counted = database.query<{ keys: unknown }>(countKeys);
    setTimeout(rollBack, 50);
    expect(Number((await counted)[0]?.keys)).toBe(0);
    expect(await failing).toBe('rolled back on purpose');
  });

  it('refuses after close with the error answered 503, not a driver’s failure', async () => {
    const closing = await createTestApp();
    await closing.database.query(countKeys);
    await closing.close();
    const refused = await closing.database.query(countKeys).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DatabaseClosedError);
    expect(isDatabaseUnreachable(refused)).toBe(true);
  });
});

describeDb('inTransaction (the one transaction model: Prisma’s interactive transactions)', () => {
  // The transaction limit is REQUEST_TIMEOUT_MS and one tick of it: 300 + 75 ms here. One connection
  // on PostgreSQL too, so that a transaction can wait for it as on SQLite.
  const app = useTestApp({ REQUEST_TIMEOUT_MS: '300', DATABASE_POOL_SIZE: '1' });
  const insertKey = (id: string) =>
    Prisma.sql`INSERT INTO "IdempotencyKey" ("id", "fingerprint", "expiresAt")
      VALUES (${id}, ${'direct'}, ${BigInt(Date.now() + 60_000)})`;
  /** `work`'s raw SQL statements in one transaction of the app's database. */
  const transaction = <T>(work: (query: RunStatement) => Promise<T>) =>
    inTransaction(app().database.prisma, (tx) => work(rawSqlIn(tx).query));
  const keyCount = async () =>
    Number((await app().database.query<{ keys: unknown }>(countKeys))[0]?.keys);

  it('commits its statements together, and rolls them all back when its work throws', async () => {
    const { database } = app();
    const before = await keyCount();
    const statements = database.statementCount();
    await transaction(async (query) => {
      await query(insertKey('together-1'));
      await query(insertKey('together-2'));
    });
    // The two inserts and the COMMIT, as through Prisma's client.
    expect(database.statementCount()).toBe(statements + 3);
    expect(await keyCount()).toBe(before + 2);
    const failed = await transaction(async (query) => {
      await query(insertKey('undone-1'));
      throw new Error('undone on purpose');
    }).catch((error: Error) => error.message);
    expect(failed).toBe('undone on purpose');
    expect(await keyCount()).toBe(before + 2);
  });

  it('waits for the connection no longer than its limit, and never runs once it is past', async () => {
    const { database } = app();
    const before = await keyCount();
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    // Holds the one connection for longer than the limit.
    const holder = database.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        holding();
        await sleep(700);
      },
      { timeout: 5000 },
    );
    await held;
    const started = Date.now();
    const waited = await transaction((query) => query(insertKey('too-late'))).catch(
      (error: unknown) => error,
    );
    expect(isDatabaseTimeout(waited)).toBe(true);
    expect(Date.now() - started).toBeLessThan(650);
    await holder;
    await sleep(50);
    expect(await keyCount()).toBe(before);
  });

  it('rolls back what it wrote once it has run past its limit, and refuses its next statement', async () => {
    const before = await keyCount();
    const ran = await transaction(async (query) => {
      await query(insertKey('slow-1'));
      await sleep(600);
      await query(insertKey('slow-2'));
    }).catch((error: unknown) => error);
    expect(isDatabaseTimeout(ran)).toBe(true);
    expect(await keyCount()).toBe(before);
  });
});
