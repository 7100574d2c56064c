import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Browser tests need Debian's Chromium. Without it they skip with a one-line notice; in CI
 * (CI=true) a missing Chromium fails the run instead, so the browser tests always run there.
 */
export default function setup(project: TestProject) {
  if (existsSync(chromiumPath)) return;
  if (process.env.CI === 'true') {
    throw new Error(
      `Chromium is required in CI but ${chromiumPath} is missing (apt-get install chromium).`,
    );
  }
  if (project.name === 'sqlite') {
    console.warn(
      `Browser tests skipped: no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH).`,
    );
  }
}
