import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';
import { traceLogFields, tracingEnabled } from './tracing/hooks.js';

export type { Logger };

/**
 * What JSON leaves raw inside a string but a terminal or a log viewer may act on: DEL, the C1
 * controls (U+0080-U+009F; U+009B starts a terminal sequence like ESC [) and the Unicode line and
 * paragraph separators. The C0 controls (ESC, newline…) are escaped by JSON already.
 */
const rawInJson = /[\u007f-\u009f\u2028\u2029]/;

/** A JSON line with every character of `rawInJson` written as its `\uXXXX` escape. */
function escapeJsonLine(line: string): string {
  if (!rawInJson.test(line)) return line;
  return line.replace(
    new RegExp(rawInJson, 'g'),
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** C0, DEL and C1 (Unicode's Cc) and the two separators. */
const controls = /[\p{Cc}\u2028\u2029]/gu;
const shortEscapes: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Text with every control character written as an escape (`\n`, `\x1b`, `\u2028`), for a terminal. */
export function escapeControls(text: string): string {
  return text.replace(controls, (char) => {
    const code = char.charCodeAt(0);
    return (
      shortEscapes[char] ??
      (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`)
    );
  });
}

/**
 * Structured JSON logs on stdout (or `destination`). Lines about a request carry its `requestId`,
 * which the code writing them passes (the access log, REST and GraphQL failures, readiness).
 * Authorization headers, cookies, tokens and secrets are never logged: the access log writes none
 * of them, and these keys are redacted wherever they appear one or two levels deep. When tracing
 * is on, every line written while a request is served also carries its `trace_id` and `span_id`.
 * A line never carries a control character raw, whatever a client sent (a path, a name, a message):
 * a request cannot forge a line or drive the terminal that shows the log.
 */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const secrets = ['authorization', 'cookie', 'token', 'password', 'secret', 'jwtSecret'];
  return pino(
    {
      level,
      base: undefined,
      hooks: { streamWrite: escapeJsonLine },
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

/**
 * A field's value as the readable line writes it: a plain word as it is; anything a reader could
 * take for more than one value (a space, `=`, a quote, a backslash, a control, nothing) in double
 * quotes, its quotes and backslashes escaped (controls are escaped for the whole line); objects
 * as JSON.
 */
function fieldValue(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  if (value !== '' && !/[\s="\\\p{Cc}\u2028\u2029]/u.test(value)) return value;
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** One JSON log line as a person reads it: `12:03:04 INFO  message key=value key="a b" …`. */
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
    .map(([key, value]) => `${key}=${fieldValue(value)}`)
    .join(' ');
  return `${escapeControls(`${clock} ${name} ${msg ?? ''}${rest ? ` ${rest}` : ''}`)}\n`;
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
