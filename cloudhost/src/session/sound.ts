import { startPulse, type AudioServer } from '../audio.ts';
import type { AgentConfig } from '../config.ts';
import { startJail } from '../jail.ts';
import { audioArgs, RtpReceiver } from '../media.ts';
import type { GamePeer } from '../peer.ts';
import type { ManagedProcess } from '../processes.ts';
import { sandboxPulseSocket } from '../sandbox.ts';
import { encoderJail } from '../services.ts';
import { encoderRestarts, type SessionControl } from './control.ts';

/**
 * A session's sound: its PulseAudio server (in its jail, audio.ts) and the audio encoder recording
 * the game's sink (ffmpeg to a loopback RTP port, media.ts, feeding the peer's audio track), started
 * with the offer. The encoder is restarted up to encoderRestarts times; after that the session goes
 * on without sound.
 */
export class SessionSound {
  private server: AudioServer | undefined;
  private rtp: RtpReceiver | undefined;
  private encoder: ManagedProcess | undefined;
  private restarts = 0;

  constructor(
    private readonly control: SessionControl,
    private readonly config: AgentConfig,
  ) {}

  /** RTP packets that went to the peer's audio track (for the session's closing log). */
  get packets(): number {
    return this.rtp?.packets ?? 0;
  }

  async start(): Promise<void> {
    this.server = await this.control.adopt(await startPulse(this.control.serviceJail(), this.config.programs.pulseaudio), (audio) => audio.process.stop());
  }

  /** Opens the loopback port the encoder sends to, its packets going to the peer's audio track. */
  async openStream(peer: GamePeer): Promise<void> {
    this.rtp = await this.control.adopt(await RtpReceiver.open((packet) => peer.audio.writeRtp(packet)), (value) => value.close());
  }

  /** Starts the audio encoder (with the offer: PulseAudio takes about a second to deliver). */
  startEncoder(): void {
    if (this.control.closing() || !this.rtp || !this.server) return;
    const { config } = this;
    const encoder = startJail(
      'ffmpeg audio',
      encoderJail(this.control.serviceJail(), { sound: true }, [config.programs.ffmpeg, ...audioArgs(sandboxPulseSocket, config.audioKbps, this.rtp.port)]),
    );
    this.encoder = encoder;
    encoder.exited.then((exit) => {
      if (this.control.closing() || encoder.stopRequested) return;
      if (this.restarts >= encoderRestarts) {
        this.control.log.warn(`audio encoder failed for good (${encoder.stderrTail() || exit.code}): the session goes on without sound`);
        return;
      }
      this.restarts += 1;
      this.control.log.warn(`audio encoder stopped (${encoder.stderrTail() || exit.code}); restarting`);
      setTimeout(() => this.startEncoder(), 500);
    });
  }

  stopEncoder(): Promise<void> | undefined {
    return this.encoder?.stop();
  }

  closeStream(): void {
    this.rtp?.close();
  }

  stopServer(): Promise<void> | undefined {
    return this.server?.process.stop();
  }
}
