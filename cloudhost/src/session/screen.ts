import { readlinkSync } from 'node:fs';
import type { AgentConfig } from '../config.ts';
import { displayInUse, startXvfb, type DisplayServer } from '../display.ts';
import type { JailSpec } from '../jail.ts';
import { RtpReceiver, videoArgs } from '../media.ts';
import type { GamePeer } from '../peer.ts';
import type { ManagedProcess } from '../processes.ts';
import { encoderJail } from '../services.ts';
import type { SessionControl, StartWork } from './control.ts';
import { SessionEncoder } from './encoder.ts';

/**
 * A session's screen: its X server (Xvfb in its jail, display.ts) and the video encoder capturing it
 * (ffmpeg to a loopback RTP port, media.ts, feeding the peer's video track), started once the player
 * is connected. The display stopping ends the session; so does the encoder failing for good
 * (encoder.ts: after its restarts).
 */
export class SessionScreen {
  private xvfb: ManagedProcess | undefined;
  private sandbox: DisplayServer['sandbox'];
  private rtp: RtpReceiver | undefined;
  private readonly encoder: SessionEncoder;

  constructor(
    private readonly control: SessionControl,
    private readonly config: AgentConfig,
    private readonly settings: StartWork['settings'],
    private number: number,
    /** Another free display number, when the first was taken meanwhile. */
    private readonly otherDisplay: () => number,
  ) {
    this.encoder = new SessionEncoder(control, 'video', () => this.encoderJail(), (exit, encoder) =>
      control.end('errored', `the video encoder failed (${exit.signal ?? `exit code ${exit.code}`}): ${encoder.stderrTail() || 'no message'}`),
    );
  }

  get display(): number {
    return this.number;
  }

  /** What went to the peer's video track (for the session's closing log). */
  get streamed(): { packets: number; bytes: number } {
    return { packets: this.rtp?.packets ?? 0, bytes: this.rtp?.bytes ?? 0 };
  }

  /** Xvfb on this session's display; a number another X server took meanwhile is swapped for a free one. */
  private async startDisplay(): Promise<DisplayServer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await startXvfb(this.control.serviceJail(), this.config.programs.xvfb, this.number, this.settings.width, this.settings.height);
      } catch (error) {
        if (attempt >= 3 || !displayInUse(this.number)) throw error;
        this.control.log.warn(`display :${this.number} is taken; trying another`);
        this.number = this.otherDisplay();
      }
    }
  }

  /** Starts the display; its stopping later ends the session as errored. */
  async start(): Promise<void> {
    const display = await this.control.adopt(await this.startDisplay(), (server) => server.process.stop());
    this.xvfb = display.process;
    this.sandbox = display.sandbox;
    this.xvfb.exited.then(() => {
      if (!this.control.closing()) this.control.end('errored', `the display stopped (${this.xvfb?.stderrTail() || 'no message'})`);
    });
  }

  /** Opens the loopback port the encoder sends to, its packets going to the peer's video track. */
  async openStream(peer: GamePeer): Promise<void> {
    this.rtp = await this.control.adopt(await RtpReceiver.open((packet) => peer.writeVideo(packet)), (value) => value.close());
  }

  /** Starts the video encoder (on connect: the player's decoder begins with its first keyframe). */
  startEncoder(): void {
    this.encoder.start();
  }

  /** The video encoder's jail: ffmpeg capturing the display to the RTP port (none before the port is open). */
  private encoderJail(): JailSpec | undefined {
    if (!this.rtp) return undefined;
    const { config, settings } = this;
    const args = videoArgs(
      { display: this.number, width: settings.width, height: settings.height, fps: settings.fps, codec: config.codec, kbps: config.videoKbps, gopSeconds: config.gopSeconds },
      this.rtp.port,
    );
    return encoderJail(this.control.serviceJail(), { display: this.number, ipcOf: this.displayIpcPid() }, [config.programs.ffmpeg, ...args]);
  }

  /**
   * The X server's sandbox, for its video encoder to share MIT-SHM with it: only as root (joining a
   * namespace is setns), and only while that pid still names the very namespace bubblewrap reported.
   */
  private displayIpcPid(): number | undefined {
    const sandbox = this.sandbox;
    if (sandbox === undefined || process.getuid?.() !== 0 || !this.xvfb?.running) return undefined;
    try {
      return readlinkSync(`/proc/${sandbox.pid}/ns/ipc`) === `ipc:[${sandbox.ipcNamespace}]` ? sandbox.pid : undefined;
    } catch {
      return undefined;
    }
  }

  stopEncoder(): Promise<void> | undefined {
    return this.encoder.stop();
  }

  closeStream(): void {
    this.rtp?.close();
  }

  stopDisplay(): Promise<void> | undefined {
    return this.xvfb?.stop();
  }
}
