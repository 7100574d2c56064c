import { describe } from 'vitest';
import { varnishAvailable, varnishdPath } from '../../bench/varnishd.js';
import { databaseAvailable } from './app.js';

export { freePort, startVarnish, type Varnish } from '../../bench/varnishd.js';

if (!varnishAvailable) {
  // In CI (CI=true) Varnish must be there: .ci/run installs it.
  if (process.env.CI === 'true')
    throw new Error(
      `Varnish is required in CI but ${varnishdPath} is missing (apt-get install varnish varnish-modules).`,
    );
  if (process.env.TEST_DATABASE !== 'postgresql')
    console.warn(
      `Varnish tests skipped: no varnishd at ${varnishdPath} (apt-get install varnish varnish-modules, or set VARNISHD_PATH).`,
    );
}

/** `describe` that skips without varnishd (with the notice above; CI fails instead). */
export const describeVarnish = describe.skipIf(!varnishAvailable || !databaseAvailable);
