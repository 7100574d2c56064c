import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/**
 * The harness talks to each server process over Node's IPC channel, so it can read a server's SQL
 * statement count and memory, and profile the runs it chooses, without adding routes to the
 * product.
 */

export type ToServer =
  | { type: 'stats'; id: number }
  /** Starts V8's CPU profiler (`--profile`: around one run, so that a profile is of one load). */
  | { type: 'startProfile'; id: number }
  /** Stops it and writes the profile to `file` (a `.cpuprofile`). */
  | { type: 'writeProfile'; id: number; file: string }
  | { type: 'stop' };

export type FromServer =
  | { type: 'ready'; port: number }
  | { type: 'stats'; id: number; statements: number; rss: number; cpuMicros: number }
  | { type: 'done'; id: number; error?: string };

export interface ServerStats {
  /** SQL statements sent since the process started. */
  statements: number;
  /** Resident set size in bytes. */
  rss: number;
  /** CPU time (user + system, all threads) since the process started, in microseconds. */
  cpuMicros: number;
}

/**
 * Server side: announces the listening port, then answers `stats`, `startProfile`, `writeProfile`
 * and `stop`. A server also stops when the harness goes away, so no process outlives a run.
 */
export function answerHarness(
  port: number,
  statementCount: () => number,
  stop: () => Promise<void>,
): void {
  const send = process.send?.bind(process);
  if (!send)
    throw new Error('start this server through the bench runner (it needs an IPC channel)');
  const exit = () => {
    void stop().finally(() => process.exit(0));
  };
  let profiler: Session | undefined;
  const answerProfile = async (message: ToServer & { type: 'startProfile' | 'writeProfile' }) => {
    if (message.type === 'startProfile') {
      if (!profiler) {
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
      }
      await profiler.post('Profiler.start');
    } else {
      if (!profiler) throw new Error('no profile was started');
      const { profile } = await profiler.post('Profiler.stop');
      await writeFile(message.file, JSON.stringify(profile));
    }
  };
  process.on('message', (message: ToServer) => {
    if (message.type === 'stop') exit();
    else if (message.type === 'stats') {
      const rss = process.memoryUsage.rss();
      const cpu = process.cpuUsage();
      send({
        type: 'stats',
        id: message.id,
        statements: statementCount(),
        rss,
        cpuMicros: cpu.user + cpu.system,
      } satisfies FromServer);
    } else {
      answerProfile(message).then(
        () => send({ type: 'done', id: message.id } satisfies FromServer),
        (error: unknown) => send({ type: 'done', id: message.id, error: String(error) }),
      );
    }
  });
  process.on('disconnect', exit);
  send({ type: 'ready', port } satisfies FromServer);
}
