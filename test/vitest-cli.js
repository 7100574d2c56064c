/**
 * Vitest's own command line, as `npm test` and `npm run test:watch` run it, but for one thing: an
 * option it does not know is one line on stderr and exit code 2, where its CLI throws a stack trace.
 */
try {
  await import(new URL('../node_modules/vitest/vitest.mjs', import.meta.url).href);
} catch (error) {
  // The CLI parses its arguments as it loads: its parser's errors arrive here, thrown.
  if (!(error instanceof Error) || error.name !== 'CACError') throw error;
  process.stderr.write(`test: ${error.message} (see npm test -- --help)\n`);
  process.exitCode = 2;
}
