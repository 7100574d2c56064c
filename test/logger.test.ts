import { expect, it } from 'vitest';
import { createLogger, terminalDestination } from '../src/logger.js';

function terminal(isTTY: boolean) {
  const lines: string[] = [];
  return { isTTY, write: (text: string) => lines.push(text), lines };
}

it('writes readable lines to a terminal, secrets still redacted', () => {
  const out = terminal(true);
  const logger = createLogger('info', terminalDestination(out));
  logger.info({ url: 'http://127.0.0.1:4000', database: 'sqlite', token: 'abc' }, 'serving');
  logger.warn({ nested: { a: 1 } }, 'careful');
  expect(out.lines).toEqual([
    expect.stringMatching(
      /^\d\d:\d\d:\d\d INFO {2}serving url=http:\/\/127\.0\.0\.1:4000 database=sqlite token=\[redacted\]\n$/,
    ),
    expect.stringMatching(/^\d\d:\d\d:\d\d WARN {2}careful nested=\{"a":1\}\n$/),
  ]);
});

it('keeps JSON lines when stdout is not a terminal', () => {
  expect(terminalDestination(terminal(false))).toBeUndefined();
});
