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

it('quotes and escapes a readable line’s values that a reader could take for more than one', () => {
  const out = terminal(true);
  const logger = createLogger('info', terminalDestination(out));
  logger.info(
    { plain: 'shop-web', spaced: 'a b=c', empty: '', quote: 'x"y', control: 'red\u001b[31m\u009b' },
    'fields',
  );
  expect(out.lines).toEqual([
    expect.stringMatching(
      /^\d\d:\d\d:\d\d INFO {2}fields plain=shop-web spaced="a b=c" empty="" quote="x\\"y" control="red\\x1b\[31m\\x9b"\n$/,
    ),
  ]);
});
