import { formatSize } from '../shared/format/size.ts';
import type { CliIo } from './io.ts';

export type Progress = { update(done: number): void; finish(): void };

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '--:--';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/**
 * Progress of `total` bytes. On a terminal one line redrawn in place (bar, bytes, rate, ETA) at most
 * 10 times a second; elsewhere (CI logs) a plain line at every 10 %.
 */
export function startProgress(io: CliIo, label: string, total: number, options: { quiet?: boolean; now?: () => number } = {}): Progress {
  const now = options.now ?? (() => performance.now());
  const started = now();
  let lastDraw = 0;
  let lastStep = -1;
  let done = 0;
  const known = total > 0;
  const line = (): string => {
    const elapsed = (now() - started) / 1000;
    const rate = elapsed > 0 ? done / elapsed : 0;
    if (!known) return `${label} ${formatSize(done)} ${formatSize(rate)}/s`;
    const eta = rate > 0 ? (total - done) / rate : Infinity;
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    return `${label} ${(fraction * 100).toFixed(0).padStart(3)}% ${formatSize(done)}/${formatSize(total)} ${formatSize(rate)}/s ETA ${formatDuration(eta)}`;
  };
  const draw = (force: boolean) => {
    if (options.quiet) return;
    if (io.isTTY) {
      const time = now();
      if (!force && time - lastDraw < 100) return;
      lastDraw = time;
      if (!known) {
        io.stderr(`\r\x1b[2K${line()}`);
        return;
      }
      const width = 24;
      const filled = Math.round((total > 0 ? Math.min(1, done / total) : 1) * width);
      io.stderr(`\r\x1b[2K[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${line()}`);
      return;
    }
    // Without a known total (a streamed download), CI logs get the start and the end only.
    if (!known && !force) return;
    const step = known ? Math.floor((Math.min(done, total) / total) * 10) : lastStep + 1;
    if (step > lastStep) {
      lastStep = step;
      io.stderr(`${line()}\n`);
    }
  };
  draw(true);
  return {
    update(value) {
      done = value;
      draw(false);
    },
    finish() {
      if (known) done = Math.max(done, total);
      if (io.isTTY) {
        draw(true);
        if (!options.quiet) io.stderr('\n');
      } else if (lastStep < 10 || !known) draw(true);
    },
  };
}
