import { describe, expect, it } from 'vitest';
import { createProgressBar } from '../../src/db/progress-bar.js';

function stream(isTTY: boolean) {
  let text = '';
  return {
    isTTY,
    write: (chunk: string) => {
      text += chunk;
    },
    text: () => text,
  };
}

describe('progress bar', () => {
  it('writes a plain line every 10% when the stream is not a terminal', () => {
    const out = stream(false);
    const bar = createProgressBar(1000, 'pets', out);
    for (let done = 50; done <= 1000; done += 50) bar.update(done);
    bar.finish();
    const lines = out.text().split('\n').filter(Boolean);
    expect(out.text()).not.toContain('\r');
    expect(lines.map((line) => /\] (\d+)% ([\d,]+)\/1,000/.exec(line)?.slice(1))).toEqual(
      [10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((percent) => [
        String(percent),
        (percent * 10).toLocaleString('en-US'),
      ]),
    );
    expect(lines.at(-1)).toMatch(/^pets \[#{30}\] 100% 1,000\/1,000 \(/);
  });

  it('redraws one line in place on a terminal and ends it when finished', () => {
    const out = stream(true);
    const bar = createProgressBar(4, 'pets', out);
    bar.update(2);
    bar.update(4);
    bar.finish();
    // Each draw returns to the line start and clears what a longer line left behind.
    const text = out.text().replaceAll('\r', '<start>').replaceAll('\x1b[K', '<clear>');
    expect(text).toMatch(
      /^<start>pets \[#{15}-{15}\] 50% 2\/4 \([^<]*\)<clear><start>pets \[#{30}\] 100% 4\/4 \([^<]*\)<clear>\n$/,
    );
  });

  it('counts the rate from when the work began, not from when the bar was made', () => {
    const out = stream(false);
    // The first batch of 1,000 took two seconds before it reported.
    const bar = createProgressBar(10_000, 'pets', out, performance.now() - 2000);
    bar.update(1000);
    const rate = Number(/\(([\d,]+)\/s/.exec(out.text())?.[1]?.replace(/,/g, ''));
    expect(rate).toBeGreaterThan(400);
    expect(rate).toBeLessThanOrEqual(500);
  });
});
