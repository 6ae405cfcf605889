import { startJail, type JailSpec } from '../jail.ts';
import type { ManagedProcess } from '../processes.ts';
import type { SessionControl } from './control.ts';

/** Encoders may fail and be restarted this many times per session before it gives up. */
const encoderRestarts = 3;

type Exit = Awaited<ManagedProcess['exited']>;

/**
 * One of a session's ffmpeg encoders (screen.ts: video, sound.ts: audio): started in its jail, and
 * restarted half a second after it stops unasked, up to encoderRestarts times; then `giveUp` says what
 * the session does without it.
 */
export class SessionEncoder {
  private process: ManagedProcess | undefined;
  private restarts = 0;

  constructor(
    private readonly control: SessionControl,
    private readonly kind: 'video' | 'audio',
    /** Its jail and command, or undefined while it cannot run yet. */
    private readonly jail: () => JailSpec | undefined,
    private readonly giveUp: (exit: Exit, encoder: ManagedProcess) => void,
  ) {}

  start(): void {
    if (this.control.closing()) return;
    const spec = this.jail();
    if (!spec) return;
    const encoder = startJail(`ffmpeg ${this.kind}`, spec);
    this.process = encoder;
    encoder.exited.then((exit) => {
      if (this.control.closing() || encoder.stopRequested) return;
      if (this.restarts >= encoderRestarts) {
        this.giveUp(exit, encoder);
        return;
      }
      this.restarts += 1;
      this.control.log.warn(`${this.kind} encoder stopped (${encoder.stderrTail() || exit.code}); restarting`);
      setTimeout(() => this.start(), 500);
    });
  }

  stop(): Promise<void> | undefined {
    return this.process?.stop();
  }
}
