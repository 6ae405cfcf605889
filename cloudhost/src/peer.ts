import { MediaStreamTrack, RTCPeerConnection, RTCRtpHeaderExtensionParameters, RtpPacket, useH264, useOPUS, useVP8, type RTCDataChannel } from 'werift';
import type { IceServer } from '../../src/shared/schemas/cloud-play.ts';
import type { VideoCodec } from './config.ts';

export type PeerState = 'new' | 'connecting' | 'connected' | 'disconnected' | 'failed' | 'closed';

/** How long the offer waits for ICE gathering (STUN/TURN answers) before it goes with what it has. */
const gatheringTimeoutMs = 5000;

/**
 * The RTP header extension that bounds the player's playout delay (10 ms units, 12 bits each for the
 * least and the most). Min = max = 0 tells the browser to show each frame as soon as it is decoded:
 * no jitter buffer holding frames back, so a game's picture is never delayed on the player's side to
 * make motion smoother (Chromium's own estimate grew to 100–350 ms on a busy machine).
 */
const playoutDelayUri = 'http://www.webrtc.org/experiments/rtp-hdrext/playout-delay';
const playoutDelayId = 1;
const noPlayoutDelay = Buffer.from([0, 0, 0]);

/**
 * The session's RTCPeerConnection (werift): the agent offers, the player answers. One video and one
 * audio track (send only) fed with ffmpeg's RTP, and the data channel `input` the player writes
 * its events to. Loopback is among the host candidates (werift skips it otherwise), no IPv6,
 * everything bundled on one transport; ICE servers are the server's (an empty list by default: no
 * STUN lookups on a LAN or loopback). The video offers the playout-delay extension, and each of its
 * packets carries a delay of zero (writeVideo).
 */
export class GamePeer {
  readonly pc: RTCPeerConnection;
  readonly video: MediaStreamTrack;
  readonly audio: MediaStreamTrack;
  readonly input: RTCDataChannel;
  pliCount = 0;

  constructor(iceServers: readonly IceServer[], codec: VideoCodec) {
    this.pc = new RTCPeerConnection({
      iceServers: iceServers.map((server) => ({ ...server, urls: server.urls })),
      iceAdditionalHostAddresses: ['127.0.0.1'],
      iceUseIpv6: false,
      bundlePolicy: 'max-bundle',
      codecs: { video: [codec === 'h264' ? useH264() : useVP8()], audio: [useOPUS()] },
      headerExtensions: { video: [new RTCRtpHeaderExtensionParameters({ id: playoutDelayId, uri: playoutDelayUri })], audio: [] },
    });
    this.video = new MediaStreamTrack({ kind: 'video' });
    this.audio = new MediaStreamTrack({ kind: 'audio' });
    const videoTransceiver = this.pc.addTransceiver(this.video, { direction: 'sendonly' });
    this.pc.addTransceiver(this.audio, { direction: 'sendonly' });
    videoTransceiver.sender.onPictureLossIndication.subscribe(() => {
      this.pliCount += 1;
    });
    this.input = this.pc.createDataChannel('input', { ordered: true });
  }

  /** One RTP packet of the video encoder's, sent to the player with a playout delay of zero. */
  writeVideo(packet: Buffer): void {
    const rtp = RtpPacket.deSerialize(packet);
    rtp.header.extensions.push({ id: playoutDelayId, payload: noPlayoutDelay });
    this.video.writeRtp(rtp);
  }

  /** The offer as the server carries it: JSON text {type: 'offer', sdp} with the gathered candidates. */
  async createOffer(): Promise<string> {
    await this.pc.setLocalDescription(await this.pc.createOffer());
    if (this.pc.iceGatheringState !== 'complete') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, gatheringTimeoutMs);
        const { unSubscribe } = this.pc.iceGatheringStateChange.subscribe((state) => {
          if (state !== 'complete') return;
          clearTimeout(timer);
          unSubscribe();
          resolve();
        });
      });
    }
    const description = this.pc.localDescription;
    if (!description) throw new Error('no local description after the offer');
    return JSON.stringify({ type: 'offer', sdp: description.sdp });
  }

  /** Applies the player's answer: the SDP text, or JSON text {type: 'answer', sdp}. */
  async applyAnswer(answer: string): Promise<void> {
    let sdp = answer;
    const trimmed = answer.trim();
    if (trimmed.startsWith('{')) {
      const parsed = JSON.parse(trimmed) as { type?: unknown; sdp?: unknown };
      if (typeof parsed.sdp !== 'string') throw new Error('the answer has no sdp');
      if (parsed.type !== undefined && parsed.type !== 'answer') throw new Error(`the answer is of type ${String(parsed.type)}`);
      sdp = parsed.sdp;
    }
    if (!sdp.startsWith('v=0')) throw new Error('the answer is not an SDP description');
    await this.pc.setRemoteDescription({ type: 'answer', sdp });
  }

  onState(listener: (state: PeerState) => void): void {
    this.pc.connectionStateChange.subscribe((state) => listener(state));
  }

  async close(): Promise<void> {
    await this.pc.close().catch(() => undefined);
  }
}
