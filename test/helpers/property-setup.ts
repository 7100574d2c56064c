import fc from 'fast-check';

/**
 * Every property test (fast-check) runs with one seed per run: fixed in CI (FC_SEED, or the default
 * below), so that CI never depends on luck, and random elsewhere so that development explores more
 * inputs. A failure prints the seed (and the counterexample's path); `FC_SEED=<seed> npm test` replays it.
 */
const FIXED_SEED = 20261124;

const seed = process.env.FC_SEED
  ? Number(process.env.FC_SEED)
  : process.env.CI === 'true'
    ? FIXED_SEED
    : Date.now() ^ (Math.random() * 0x100000000);

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
