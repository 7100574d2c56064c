/**
 * The harness talks to each server process over Node's IPC channel, so it can read a server's SQL
 * statement count and memory without adding routes to the product.
 */

export type ToServer = { type: 'stats'; id: number } | { type: 'stop' };

export type FromServer =
  | { type: 'ready'; port: number }
  | { type: 'stats'; id: number; statements: number; rss: number; cpuMicros: number };

export interface ServerStats {
  /** SQL statements sent since the process started. */
  statements: number;
  /** Resident set size in bytes. */
  rss: number;
  /** CPU time (user + system, all threads) since the process started, in microseconds. */
  cpuMicros: number;
}

/**
 * Server side: announces the listening port, then answers `stats` and `stop`. A server also stops
 * when the harness goes away, so no process outlives a run.
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
  process.on('message', (message: ToServer) => {
    if (message.type === 'stop') exit();
    else {
      const rss = process.memoryUsage.rss();
      const cpu = process.cpuUsage();
      send({
        type: 'stats',
        id: message.id,
        statements: statementCount(),
        rss,
        cpuMicros: cpu.user + cpu.system,
      } satisfies FromServer);
    }
  });
  process.on('disconnect', exit);
  send({ type: 'ready', port } satisfies FromServer);
}
