import type { FailureLog } from '../errors/classify.js';
import type { Logger } from '../logger.js';

/** One line per cause and logger within this time; the rest are counted, not written. */
const throttleIntervalMs = 1000;

interface CauseState {
  /** When the last line for this cause was written (monotonic milliseconds). */
  writtenAt: number;
  /** Lines left out since then. */
  suppressed: number;
}

const causes = new WeakMap<Logger, Map<string, CauseState>>();

/**
 * Logs `message` at most once per second per logger and message. During an outage every request
 * fails for the same reason (the database cannot be reached); a line per request, or two, would
 * flood the log and bury everything else. The line that is written carries `suppressed`: how many
 * were left out since the previous one. The message is the cause, so write it as a fixed
 * sentence and put the details in `fields`.
 */
function logThrottled(
  logger: Logger,
  level: 'warn' | 'error',
  fields: Record<string, unknown>,
  message: string,
): void {
  let byMessage = causes.get(logger);
  if (!byMessage) {
    byMessage = new Map();
    causes.set(logger, byMessage);
  }
  const now = performance.now();
  const state = byMessage.get(message);
  if (state && now - state.writtenAt < throttleIntervalMs) {
    state.suppressed++;
    return;
  }
  const suppressed = state?.suppressed ?? 0;
  byMessage.set(message, { writtenAt: now, suppressed: 0 });
  logger[level](suppressed > 0 ? { ...fields, suppressed } : fields, message);
}

/** Logs a classified failure as `classifyError` says (nothing, a throttled warning, an error). */
export function logFailure(
  logger: Logger,
  log: FailureLog | undefined,
  fields: Record<string, unknown>,
): void {
  if (!log) return;
  if (log.throttled) logThrottled(logger, log.level, fields, log.message);
  else logger[log.level](fields, log.message);
}
