import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every suite runs twice: once on SQLite, once on PostgreSQL (skipped with a notice where absent). */
export default defineConfig({
  // graphql ships CommonJS and ESM builds; Pothos and Yoga must share one copy of it (the CommonJS
  // one, as under Node; its own paths, such as graphql/language/parser.js, are that build already).
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    root,
    globalSetup: [
      'test/helpers/global-setup.ts',
      'test/helpers/browser-setup.ts',
      'test/helpers/redis-setup.ts',
    ],
    // One seed for every property test: fixed in CI (see the file).
    setupFiles: ['test/helpers/property-setup.ts'],
    // A worker per core (Vitest's default, one fewer, runs the files one at a time on CI's two
    // cores), and the modules a worker loaded are kept for its next file: loading the app's
    // modules again for each file was a third of the suite's time. A test file keeps its state in
    // what it creates (apps, servers, databases), never in a module of src/.
    maxWorkers: '100%',
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: ['sqlite', 'postgresql'].map((database) => ({
      extends: true,
      test: {
        name: database,
        include: ['test/**/*.test.ts'],
        env: { TEST_DATABASE: database },
      },
    })),
  },
});
