import { startPulse, type AudioServer } from '../audio.ts';
import type { AgentConfig } from '../config.ts';
import type { JailSpec } from '../jail.ts';
import { audioArgs, RtpReceiver } from '../media.ts';
import type { GamePeer } from '../peer.ts';
import { sandboxPulseSocket } from '../sandbox.ts';
import { encoderJail } from '../services.ts';
import type { SessionControl } from './control.ts';
import { SessionEncoder } from './encoder.ts';

/**
 * A session's sound: its PulseAudio server (in its jail, audio.ts) and the audio encoder recording
 * the game's sink (ffmpeg to a loopback RTP port, media.ts, feeding the peer's audio track), started
 * with the offer. When the encoder fails for good (encoder.ts: after its restarts), the session goes
 * on without sound.
 */
export class SessionSound {
  private server: AudioServer | undefined;
  private rtp: RtpReceiver | undefined;
  private readonly encoder: SessionEncoder;

  constructor(
    private readonly control: SessionControl,
    private readonly config: AgentConfig,
  ) {
    this.encoder = new SessionEncoder(control, 'audio', () => this.encoderJail(), (exit, encoder) =>
      control.log.warn(`audio encoder failed for good (${encoder.stderrTail() || exit.code}): the session goes on without sound`),
    );
  }

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
    this.encoder.start();
  }

  /** The audio encoder's jail: ffmpeg recording the game's sink to the RTP port (none before both are up). */
  private encoderJail(): JailSpec | undefined {
    if (!this.rtp || !this.server) return undefined;
    const { config } = this;
    return encoderJail(this.control.serviceJail(), { sound: true }, [config.programs.ffmpeg, ...audioArgs(sandboxPulseSocket, config.audioKbps, this.rtp.port)]);
  }

  stopEncoder(): Promise<void> | undefined {
    return this.encoder.stop();
  }

  closeStream(): void {
    this.rtp?.close();
  }

  stopServer(): Promise<void> | undefined {
    return this.server?.process.stop();
  }
}
