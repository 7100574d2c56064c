import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/**
 * Structured JSON logs on stdout (or `destination`). Lines about a request carry its `requestId`,
 * which the code writing them passes (the access log, REST and GraphQL failures, readiness).
 * Authorization headers, cookies, tokens and secrets are never logged: the access log writes none
 * of them, and these keys are redacted wherever they appear one or two levels deep.
 */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const secrets = ['authorization', 'cookie', 'token', 'password', 'secret', 'jwtSecret'];
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          ...secrets,
          ...secrets.map((key) => `*.${key}`),
          'req.headers.authorization',
          'req.headers.cookie',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
