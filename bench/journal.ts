/**
 * `npx tsx bench/journal.ts`: placeOrder on the embedded SQLite database with the product's
 * journal (WAL, synchronous=NORMAL) against SQLite's defaults (a rollback journal, synchronous=
 * FULL), in one run. Each mode gets its own database file and its own app, built by the
 * product's createApp; orders go through the app's fetch handler (no HTTP: the journal is what
 * differs), 10 at a time, the modes alternating round by round. Prints orders/s and the ratio.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { mintToken } from '../src/auth/tokens.js';
import { loadConfig } from '../src/config.js';
import { placeOrder } from './documents.js';

const PETS = 500;
const ORDERS_PER_ROUND = 1_000;
const ROUNDS = 5;
const CONCURRENCY = 10;
const secret = 'bench-journal-secret-bench-journal-secret';

type Mode = 'wal' | 'rollback';

async function openMode(mode: Mode) {
  const file = join(tmpdir(), `petstore-journal-${mode}-${process.pid}.db`);
  const app = await createApp(
    loadConfig({
      DATABASE_URL: `file:${file}`,
      SEED: 'false',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      RESPONSE_CACHE_TTL_MS: '0',
      AUTH_JWT_SECRET: secret,
    }),
  );
  // The app's one connection is the only one on this file, so the journal can be switched back.
  if (mode === 'rollback') {
    await app.database.prisma.$queryRawUnsafe('PRAGMA journal_mode = DELETE');
    await app.database.prisma.$queryRawUnsafe('PRAGMA synchronous = FULL');
  }
  const { prisma } = app.database;
  const category = await prisma.category.create({ data: { name: 'Bench', nameKey: 'bench' } });
  const names = Array.from({ length: PETS }, (_, i) => `Pet ${i}`);
  await prisma.pet.createMany({ data: names.map((name) => ({ name, categoryId: category.id })) });
  const petIds = (await prisma.pet.findMany({ select: { id: true } })).map((pet) => pet.id);
  await prisma.inventoryItem.createMany({
    data: petIds.map((petId) => ({ petId, quantity: 1_000_000 })),
  });
  return { app, petIds, file };
}

async function round(
  app: Awaited<ReturnType<typeof createApp>>,
  petIds: bigint[],
  token: string,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < ORDERS_PER_ROUND) {
      const petId = petIds[next++ % petIds.length] as bigint;
      const response = await app.fetch(
        new Request('http://bench/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({
            query: placeOrder,
            variables: { input: { petId: String(petId), quantity: 1 } },
          }),
        }),
      );
      const body = (await response.json()) as { errors?: unknown };
      if (body.errors) throw new Error(`placeOrder failed: ${JSON.stringify(body.errors)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return ORDERS_PER_ROUND / ((performance.now() - started) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

const token = await mintToken(secret, { scopes: ['orders:write'] });
const modes = { wal: await openMode('wal'), rollback: await openMode('rollback') };
const rates: Record<Mode, number[]> = { wal: [], rollback: [] };
try {
  for (let i = 0; i < ROUNDS; i++) {
    const order: Mode[] = i % 2 === 0 ? ['wal', 'rollback'] : ['rollback', 'wal'];
    for (const mode of order)
      rates[mode].push(await round(modes[mode].app, modes[mode].petIds, token));
  }
} finally {
  for (const { app, file } of Object.values(modes)) {
    await app.close();
    for (const suffix of ['', '-wal', '-shm', '-journal'])
      rmSync(`${file}${suffix}`, { force: true });
  }
}
const wal = median(rates.wal);
const rollback = median(rates.rollback);
console.log(`placeOrder on SQLite, ${CONCURRENCY} at a time, median of ${ROUNDS} rounds:`);
console.log(`  rollback journal, synchronous=FULL   ${Math.round(rollback)}/s`);
console.log(`  WAL, synchronous=NORMAL (product)    ${Math.round(wal)}/s`);
console.log(`  WAL ÷ rollback journal               ${(wal / rollback).toFixed(2)}×`);
