import { expect, it } from 'vitest';
import { DatabaseClosedError, isDatabaseUnreachable } from '../../src/db/errors.js';
import { Prisma } from '../../src/generated/sqlite/client.js';
import { createTestApp, describeDb, useTestApp } from '../helpers/app.js';

const countKeys = Prisma.sql`SELECT COUNT(*) AS "keys" FROM "IdempotencyKey" WHERE "fingerprint" = ${'direct'}`;

describeDb('Database.query (a statement without Prisma’s client)', () => {
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
