import { type Logger, pino } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** Structured JSON logs on stdout. Authorization headers and tokens are never logged. */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', 'token', '*.token'], censor: '[redacted]' },
  });
}
