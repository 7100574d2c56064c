import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger, terminalDestination } from '../../src/logger.js';
import { createTestApp, describeDb } from '../helpers/app.js';

/** A path that, logged raw, colours a terminal red and starts a line of its own. */
const forging = '/%1b[31mred%0aFORGED%20line%0d%7f%c2%9b31m%e2%80%a8end';
/** Every control character a log line must not carry raw (C0, DEL, C1, U+2028 and U+2029). */
const rawControl = /[\p{Cc}\u2028\u2029]/u;

describeDb('log lines never carry a client’s control characters raw', () => {
  it('on a terminal: the forged path is one line, its controls written as escapes', async () => {
    let text = '';
    const out = { isTTY: true, write: (line: string) => (text += line) };
    const app = await createTestApp(
      { LOG_LEVEL: 'info' },
      {
        logger: createLogger('info', terminalDestination(out)),
      },
    );
    try {
      const response = await app.fetch(new Request(`http://petstore.test${forging}`));
      expect(response.status).toBe(404);
    } finally {
      await app.close();
    }
    const lines = text.split('\n').filter(Boolean);
    // Every line is one of the logger's (time, level), none a forged one.
    for (const line of lines)
      expect(line).toMatch(/^\d\d:\d\d:\d\d (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) /);
    expect(text.replace(/\n/g, '')).not.toMatch(rawControl);
    const access = lines.find((line) => line.includes(' request '));
    expect(access).toContain('path="/\\x1b[31mred\\nFORGED line\\r\\x7f\\x9b31m\\u2028end"');
  });

  it('on a terminal: a client name that looks like more fields is quoted, so it forges none', async () => {
    const lines: string[] = [];
    const out = { isTTY: true, write: (line: string) => lines.push(line) };
    const app = await createTestApp({}, { logger: createLogger('info', terminalDestination(out)) });
    try {
      for (const name of ['web status=500 msg=FORGED', 'say "hi"\\']) {
        const headers = { 'graphql-client-name': name };
        const response = await app.fetch(
          new Request('http://petstore.test/api/categories', { headers }),
        );
        expect(response.status).toBe(200);
      }
    } finally {
      await app.close();
    }
    expect(lines.filter((line) => line.includes(' request '))).toEqual([
      expect.stringMatching(
        / INFO {2}request requestId=\S+ method=GET path=\/api\/categories status=200 durationMs=[\d.]+ client="web status=500 msg=FORGED" clientVersion=unknown\n$/,
      ),
      expect.stringMatching(/ client="say \\"hi\\"\\\\" clientVersion=unknown\n$/),
    ]);
  });

  it('in JSON: every control character escaped, and the line still parses to the path sent', async () => {
    let text = '';
    const stream = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    const app = await createTestApp(
      { LOG_LEVEL: 'info' },
      { logger: createLogger('info', stream) },
    );
    try {
      await app.fetch(new Request(`http://petstore.test${forging}`));
      await app.fetch(new Request(`http://petstore.test/api${forging}`));
    } finally {
      await app.close();
    }
    expect(text.replace(/\n/g, '')).not.toMatch(rawControl);
    const paths = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; path?: string })
      .filter((line) => line.msg === 'request')
      .map((line) => line.path);
    expect(paths).toEqual([
      '/\u001b[31mred\nFORGED line\r\u007f\u009b31m\u2028end',
      '/api/\u001b[31mred\nFORGED line\r\u007f\u009b31m\u2028end',
    ]);
  });
});
