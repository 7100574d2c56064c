import { parentPort, workerData } from 'node:worker_threads';
import type { DatabaseConfig } from '../config.js';
import { applyMigrations, type MigrationOutcome } from './migrate.js';

/** Applies the migrations in a worker thread of the server (see `migrate`), and says how it went. */
let outcome: MigrationOutcome;
try {
  outcome = { applied: await applyMigrations(workerData as DatabaseConfig) };
} catch (error) {
  const { name, message } = error instanceof Error ? error : new Error(String(error));
  outcome = { error: { name, message } };
}
parentPort?.postMessage(outcome);
