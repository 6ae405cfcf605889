import type { TransitionProgress } from './types.ts';

/** Reports done/total bytes: monotonic, at least every `step` bytes (1 MiB), and once at the end. */
export class Progress {
  done = 0;
  private reported = -1;

  constructor(
    public total: number,
    private readonly listener?: (progress: TransitionProgress) => void,
    private readonly step = 1024 * 1024,
  ) {}

  add(bytes: number): void {
    this.done += bytes;
    if (this.done - this.reported >= this.step) this.report();
  }

  /** Raises the total (a repair learns what to rebuild after its scan); never lowers it. */
  grow(total: number): void {
    if (total > this.total) this.total = total;
  }

  report(): void {
    if (!this.listener || this.done === this.reported) return;
    this.reported = this.done;
    try {
      this.listener({ done: Math.min(this.done, this.total), total: this.total });
    } catch {
      // A failing listener must not fail the install.
    }
  }

  /** The last report: done = total. */
  finish(): void {
    this.done = Math.max(this.done, this.total);
    this.report();
  }
}
