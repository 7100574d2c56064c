import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';
import { traceLogFields, tracingEnabled } from './tracing/hooks.js';

export type { Logger };

/**
 * Structured JSON logs on stdout (or `destination`). Lines about a request carry its `requestId`,
 * which the code writing them passes (the access log, REST and GraphQL failures, readiness).
 * Authorization headers, cookies, tokens and secrets are never logged: the access log writes none
 * of them, and these keys are redacted wherever they appear one or two levels deep. When tracing
 * is on, every line written while a request is served also carries its `trace_id` and `span_id`.
 */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const secrets = ['authorization', 'cookie', 'token', 'password', 'secret', 'jwtSecret'];
  return pino(
    {
      level,
      base: undefined,
      ...(tracingEnabled() ? { mixin: traceLogFields } : {}),
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

const levelNames: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** One JSON log line as a person reads it: `12:03:04 INFO  message key=value …`. */
export function readableLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json);
  } catch {
    return json;
  }
  const { time, level, msg, ...fields } = entry;
  const clock = new Date(Number(time)).toTimeString().slice(0, 8);
  const name = (levelNames[Number(level)] ?? String(level)).padEnd(5);
  const rest = Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${clock} ${name} ${msg ?? ''}${rest ? ` ${rest}` : ''}\n`;
}

/**
 * Where development logs go when stdout is a terminal: readable lines instead of JSON (production,
 * and any stdout that is a pipe or a file, keep the JSON lines a log collector reads).
 */
export function terminalDestination(
  out: { isTTY?: boolean; write(text: string): unknown } = process.stdout,
): DestinationStream | undefined {
  if (!out.isTTY) return undefined;
  return { write: (line: string) => out.write(readableLine(line)) };
}
