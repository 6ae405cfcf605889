import { createSocket, type Socket } from 'node:dgram';
import type { VideoCodec } from './config.ts';
import { sinkName } from './audio.ts';

export type VideoSettings = { display: number; width: number; height: number; fps: number; codec: VideoCodec; kbps: number; gopSeconds: number };

/**
 * ffmpeg capturing the display and sending RTP to a loopback port. ffmpeg cannot force a keyframe
 * when the player's decoder asks for one (PLI), so keyframes come every `gopSeconds` (1 s by
 * default): a lost keyframe costs at most that long. Packets stay under 1200 bytes (-pkt_size), well
 * inside any path's MTU after SRTP and TURN overheads.
 *
 * `-fps_mode vfr`: a frame captured late is followed by the newest picture, never by copies of the
 * one before. ffmpeg's default for RTP is a constant frame rate, which fills every gap in the
 * capture's timestamps with duplicates of the last frame, all encoded before the next capture: when
 * the encoder is short of CPU (a busy host), the duplicates cost more than it has, each gap is
 * longer than the one before, and the picture falls further behind every second (measured: ≈ 0.7 s
 * older each second with the encoder at a tenth of a busy loop's weight). With vfr a starved
 * encoder only lowers the frame rate; frames captured faster than `fps` (x11grab catching up after
 * a stall) are dropped before they are encoded.
 */
export function videoArgs(settings: VideoSettings, port: number): string[] {
  const gop = String(Math.max(1, Math.round(settings.fps * settings.gopSeconds)));
  const rate = `${settings.kbps}k`;
  const encoder =
    settings.codec === 'h264'
      ? [
          '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p',
          '-bf', '0', '-g', gop, '-keyint_min', gop, '-sc_threshold', '0',
          '-b:v', rate, '-maxrate', rate, '-bufsize', `${Math.max(100, Math.round(settings.kbps / 2))}k`,
          '-x264-params', 'repeat-headers=1',
        ]
      : [
          '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-lag-in-frames', '0', '-error-resilient', '1',
          '-auto-alt-ref', '0', '-g', gop, '-keyint_min', gop, '-b:v', rate, '-maxrate', rate, '-pix_fmt', 'yuv420p',
        ];
  return [
    '-hide_banner', '-loglevel', 'error', '-nostdin',
    '-f', 'x11grab', '-draw_mouse', '1', '-framerate', String(settings.fps), '-video_size', `${settings.width}x${settings.height}`,
    '-i', `:${settings.display}.0`,
    '-an', '-fps_mode', 'vfr', ...encoder,
    '-f', 'rtp', '-payload_type', '96', '-pkt_size', '1200', `rtp://127.0.0.1:${port}`,
  ];
}

/** ffmpeg recording the session's sink (its monitor) as Opus, 48 kHz stereo, 20 ms frames, low delay. */
export function audioArgs(pulseSocket: string, kbps: number, port: number): string[] {
  return [
    '-hide_banner', '-loglevel', 'error', '-nostdin',
    '-f', 'pulse', '-server', `unix:${pulseSocket}`, '-fragment_size', '3840', '-i', `${sinkName}.monitor`,
    '-vn', '-ac', '2', '-ar', '48000', '-c:a', 'libopus', '-application', 'lowdelay', '-frame_duration', '20', '-b:a', `${kbps}k`,
    '-f', 'rtp', '-payload_type', '111', '-pkt_size', '1200', `rtp://127.0.0.1:${port}`,
  ];
}

/**
 * A loopback UDP socket receiving ffmpeg's RTP; every datagram goes to `deliver` (a werift track's
 * writeRtp, which rewrites payload type, SSRC, sequence and timestamp for the negotiated stream).
 * Datagrams from anywhere but loopback are dropped.
 */
export class RtpReceiver {
  packets = 0;
  bytes = 0;
  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {}

  static async open(deliver: (packet: Buffer) => void): Promise<RtpReceiver> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const receiver = new RtpReceiver(socket, socket.address().port);
    socket.on('message', (packet, from) => {
      if (from.address !== '127.0.0.1' || packet.length < 12) return;
      receiver.packets += 1;
      receiver.bytes += packet.length;
      deliver(packet);
    });
    socket.on('error', () => undefined);
    return receiver;
  }

  close(): void {
    try {
      this.socket.close();
    } catch {
      // Closed already.
    }
  }
}
