import { describe, expect, it } from 'vitest';
import { database } from '../helpers/app.js';
import { runNode, tsx } from '../helpers/process.js';

/** The resident memory (MB) the workload ends with, with or without src/runtime's module. */
async function residentAfterWorkload(mode: 'baseline' | 'plain'): Promise<number> {
  const { code, stdout, stderr } = await runNode(
    ['--expose-gc', tsx, 'test/runtime/wasm-workload.ts', mode],
    {},
    { timeoutMs: 120_000 },
  );
  expect(code, stderr).toBe(0);
  return Number(stdout.trim().split('\n').pop());
}

/**
 * src/runtime/wasm-baseline-tier.ts keeps Prisma's WebAssembly query compiler in V8's baseline
 * tier because the optimising tier's code and memory stay resident. This fails when that stops
 * paying: Prisma's client compiles without WebAssembly, or V8's tiers no longer differ so.
 */
/** Node 24's V8 (13): the tier saved nothing there (3 MB more), so the module leaves V8 as it is. */
const setsTheTier = Number(process.versions.v8.split('.')[0]) < 13;

describe.runIf(database === 'sqlite')('the WebAssembly baseline tier', () => {
  it.runIf(setsTheTier)(
    'leaves the app at least 25 MB smaller after the same start and reads',
    async () => {
      const [baseline, plain] = await Promise.all([
        residentAfterWorkload('baseline'),
        residentAfterWorkload('plain'),
      ]);
      console.info(`resident memory: ${baseline} MB in the baseline tier, ${plain} MB without`);
      expect(plain - baseline).toBeGreaterThanOrEqual(25);
    },
    150_000,
  );
});
