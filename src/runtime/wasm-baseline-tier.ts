import { setFlagsFromString } from 'node:v8';

/**
 * Prisma's client compiles each query with a WebAssembly query compiler. V8 compiles WebAssembly
 * in its baseline tier (Liftoff) and recompiles the functions that run often in its optimising
 * tier (TurboFan), whose memory stays resident: kept in the baseline tier, the idle server holds
 * about a fifth less (docs/operations.md). Node 24's V8 (13) saves nothing so (measured: 3 MB more
 * with it), and is left as it is. Set before Prisma's client loads: imported first by
 * the server (src/server.ts) and the bench's product. test/runtime/wasm-baseline-tier.test.ts
 * fails once this no longer saves memory.
 */
if (Number(process.versions.v8.split('.')[0]) < 13) setFlagsFromString('--liftoff-only');
