import { Writable } from 'node:stream';
import type { Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';

export interface CapturedLogs {
  readonly logger: Logger;
  /** Every line written so far, parsed. */
  readonly lines: Record<string, unknown>[];
  /** The access lines (one per request). */
  accessLines(): Record<string, unknown>[];
  clear(): void;
}

/** The app's own logger (createLogger) writing JSON lines into memory, for tests to read. */
export function captureLogs(level: Config['logLevel'] = 'info'): CapturedLogs {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n')) if (text) lines.push(JSON.parse(text));
      done();
    },
  });
  return {
    logger: createLogger(level, stream),
    lines,
    accessLines: () => lines.filter((line) => line.msg === 'request'),
    clear: () => {
      lines.length = 0;
    },
  };
}
