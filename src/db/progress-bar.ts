/** Where a progress bar writes: stderr, or any stream that says whether it is a terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressBar {
  update(done: number): void;
  /** Draws the final state and ends the line. */
  finish(): void;
}

const width = 30;
const redrawEveryMs = 100;

const format = (n: number) => n.toLocaleString('en-US');

/**
 * A dependency-free progress bar. On a terminal it redraws one line in place (at most ten times a
 * second); elsewhere (CI logs, files) it writes a plain line every 10%. The rate counts from
 * `started` (a `performance.now()` value): when the work began, which may be before the bar exists
 * (a bar made once the first batch reports would otherwise show that batch as done in no time).
 */
export function createProgressBar(
  total: number,
  label: string,
  stream: ProgressStream = process.stderr,
  started = performance.now(),
): ProgressBar {
  let done = 0;
  let lastDraw = 0;
  let lastTenth = 0;

  const line = () => {
    const ratio = total === 0 ? 1 : done / total;
    const filled = Math.round(ratio * width);
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(done / seconds) : 0;
    return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${format(done)}/${format(total)} (${format(rate)}/s, ${seconds.toFixed(1)} s)`;
  };
  const draw = (force: boolean) => {
    if (stream.isTTY) {
      const now = performance.now();
      if (!force && now - lastDraw < redrawEveryMs) return;
      lastDraw = now;
      stream.write(`\r${line()}\x1b[K`);
      return;
    }
    const tenth = total === 0 ? 10 : Math.floor((done / total) * 10);
    if (tenth > lastTenth || force) {
      lastTenth = tenth;
      stream.write(`${line()}\n`);
    }
  };

  return {
    update(value) {
      done = Math.min(value, total);
      draw(false);
    },
    finish() {
      if (stream.isTTY) {
        draw(true);
        stream.write('\n');
      } else if (lastTenth < 10) {
        draw(true);
      }
    },
  };
}
