import { setFlagsFromString } from 'node:v8';

/**
 * Prisma's client compiles each query with a WebAssembly query compiler. V8 compiles WebAssembly
 * in its baseline tier (Liftoff) and recompiles the functions that run often in its optimising
 * tier (TurboFan), whose memory stays resident: kept in the baseline tier, the idle server holds
 * about a fifth less (docs/operations.md). Set before Prisma's client loads: imported first by
 * the server (src/server.ts) and the bench's product. test/runtime/wasm-baseline-tier.test.ts
 * fails once this no longer saves memory.
 */
setFlagsFromString('--liftoff-only');
