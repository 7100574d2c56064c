/**
 * `npx tsx bench/outbox-cost.ts [sqlite|postgresql]…`: what the outbox costs `placeOrder`. One app
 * per database (the product's createApp; PostgreSQL at BENCH_POSTGRES_URL, in a schema of its own),
 * orders through the app's fetch handler (no HTTP: the write is what differs), 10 at a time, in
 * rounds alternating between the product as it is (each order also appends its events to the
 * outbox, in its transaction) and the same app with the recording switched off (what a write cost
 * before the outbox). Prints the median orders/s and server CPU per order of each.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApp } from '../src/app.js';
import { mintToken } from '../src/auth/tokens.js';
import { loadConfig } from '../src/config.js';
import { placeOrder } from './documents.js';

const PETS = 500;
const ORDERS_PER_ROUND = 600;
const ROUNDS = 6;
const CONCURRENCY = 10;
const secret = 'bench-outbox-secret-bench-outbox-secret';
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

type Mode = 'outbox' | 'none';

async function openApp(database: string) {
  const schema = `bench_outbox_${process.pid}`;
  const file = join(tmpdir(), `petstore-outbox-${process.pid}.db`);
  const url =
    database === 'sqlite'
      ? `file:${file}`
      : `${postgresUrl}${postgresUrl.includes('?') ? '&' : '?'}schema=${schema}`;
  const app = await createApp(
    loadConfig({
      DATABASE_URL: url,
      SEED: 'false',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_COST_PER_MINUTE: '0',
      RESPONSE_CACHE_TTL_MS: '0',
      AUTH_JWT_SECRET: secret,
    }),
  );
  const { prisma } = app.database;
  const category = await prisma.category.create({ data: { name: 'Bench', nameKey: 'bench' } });
  const names = Array.from({ length: PETS }, (_, i) => `Pet ${i}`);
  await prisma.pet.createMany({ data: names.map((name) => ({ name, categoryId: category.id })) });
  const petIds = (await prisma.pet.findMany({ select: { id: true } })).map((pet) => pet.id);
  await prisma.inventoryItem.createMany({
    data: petIds.map((petId) => ({ petId, quantity: 1_000_000 })),
  });
  const record = app.changes.record;
  const modes: Record<Mode, () => void> = {
    outbox: () => {
      app.changes.record = record;
    },
    // No event recorded: the write as it was before the outbox.
    none: () => {
      app.changes.record = async () => {};
    },
  };
  const drop = async () => {
    await app.close();
    if (database === 'sqlite') {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    } else {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  };
  return { app, petIds, modes, drop };
}

async function round(app: Awaited<ReturnType<typeof createApp>>, petIds: bigint[], token: string) {
  let next = 0;
  const cpu = process.cpuUsage();
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
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    rate: ORDERS_PER_ROUND / seconds,
    cpuMicros: (used.user + used.system) / ORDERS_PER_ROUND,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

const databases =
  process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['sqlite', 'postgresql'];
const token = await mintToken(secret, { scopes: ['orders:write'] });
console.log(
  `placeOrder, ${CONCURRENCY} at a time, median of ${ROUNDS} rounds of ${ORDERS_PER_ROUND} (load average ${(
    await import('node:os')
  )
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')})`,
);
for (const database of databases) {
  const { app, petIds, modes, drop } = await openApp(database);
  const rates: Record<Mode, number[]> = { outbox: [], none: [] };
  const cpu: Record<Mode, number[]> = { outbox: [], none: [] };
  try {
    // A warm-up round, not counted.
    await round(app, petIds, token);
    for (let i = 0; i < ROUNDS; i++) {
      const order: Mode[] = i % 2 === 0 ? ['outbox', 'none'] : ['none', 'outbox'];
      for (const mode of order) {
        modes[mode]();
        const measured = await round(app, petIds, token);
        rates[mode].push(measured.rate);
        cpu[mode].push(measured.cpuMicros);
      }
    }
  } finally {
    await drop();
  }
  const line = (mode: Mode) =>
    `${Math.round(median(rates[mode]))}/s, ${Math.round(median(cpu[mode]))} µs CPU an order`;
  console.log(`${database}:`);
  console.log(`  without the outbox   ${line('none')}`);
  console.log(`  with the outbox      ${line('outbox')}`);
  console.log(
    `  with ÷ without       ${(median(rates.outbox) / median(rates.none)).toFixed(2)}× orders/s, ${(median(cpu.outbox) / median(cpu.none)).toFixed(2)}× CPU`,
  );
}
