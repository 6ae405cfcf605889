import { describe, expect, test } from 'bun:test';
import { completeIo } from '../../src/cli/io.ts';
import { startProgress } from '../../src/cli/progress.ts';

function capture(isTTY: boolean) {
  let text = '';
  let clock = 0;
  const io = completeIo({ env: {}, stdout: () => {}, stderr: (chunk) => (text += chunk), isTTY });
  return { io, now: () => clock, tick: (ms: number) => (clock += ms), text: () => text };
}

describe('progress', () => {
  test('outside a terminal: one plain line per 10 %, with rate and ETA', () => {
    const out = capture(false);
    const progress = startProgress(out.io, 'uploading', 1000, { now: out.now });
    for (let done = 50; done <= 1000; done += 50) {
      out.tick(100);
      progress.update(done);
    }
    progress.finish();
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toStartWith('uploading   0% 0 B/1.0 KiB 0 B/s ETA --:--');
    expect(lines[5]).toContain(' 50% 500 B/1.0 KiB 500 B/s ETA 00:01');
    expect(lines[10]).toContain('100%');
    expect(out.text()).not.toContain('\r');
  });

  test('on a terminal: one line redrawn in place, at most 10 times a second', () => {
    const out = capture(true);
    const progress = startProgress(out.io, 'uploading', 1000, { now: out.now });
    for (let done = 10; done <= 1000; done += 10) {
      out.tick(10);
      progress.update(done);
    }
    progress.finish();
    const redraws = out.text().split('\r').length - 1;
    expect(redraws).toBeGreaterThanOrEqual(10);
    expect(redraws).toBeLessThanOrEqual(13);
    expect(out.text()).toContain('[########################] uploading 100%');
    expect(out.text().endsWith('\n')).toBe(true);
  });

  test('an unknown total shows bytes and rate only', () => {
    const out = capture(false);
    const progress = startProgress(out.io, 'downloading', 0, { now: out.now });
    out.tick(1000);
    progress.update(2048);
    progress.finish();
    expect(out.text().trimEnd().split('\n').at(-1)).toBe('downloading 2.0 KiB 2.0 KiB/s');
  });
});
