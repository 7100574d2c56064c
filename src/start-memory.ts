import { getHeapSpaceStatistics } from 'node:v8';

/**
 * Starting (the modules, the migrations, the seed) grows V8's young generation to its maximum,
 * about 30 MB resident, and an idle server gives it back late or never. Node 24's V8 keeps it
 * through a plain full collection; one of the last-resort kind (what V8 runs before it gives up
 * for lack of memory) gives it back (bench/rounds.md in git history, _Resident memory when idle_). Node 20's
 * `gc` knows no kinds, and its V8 shrinks the young generation in a plain full collection only
 * while the process allocates little: not right after the start, and its own memory reducer's
 * comes some 20 s after the start on a quiet host, past 30 s on a busy one. So there, a plain one
 * every 5 s until the young generation has shrunk, at most eight (bench/rounds.md in git history,
 * twenty-fifth round). `gc` exists only with `--expose-gc`, which `npm start` passes. The
 * server runs this once it listens, and so does the bench's product (bench/product/server.ts).
 */
export function releaseStartMemory(): void {
  const gc = (globalThis as { gc?: (options?: object) => void }).gc;
  if (!gc) return;
  if (Number(process.versions.v8.split('.')[0]) >= 13) {
    gc({ type: 'major', execution: 'async', flavor: 'last-resort' });
    return;
  }
  const grown = youngGenerationBytes();
  let tries = 0;
  const collectLater = () => setTimeout(collect, 5000).unref();
  const collect = () => {
    gc();
    if (youngGenerationBytes() >= grown && ++tries < 8) collectLater();
  };
  collectLater();
}

const youngGenerationBytes = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
