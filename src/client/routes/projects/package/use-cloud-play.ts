import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import type { CloudPlaySettings } from '../../../../shared/schemas/cloud-play.ts';
import { cloudPlayReducer, initialCloudPlayStatus, type CloudPlayStatus } from '../../../cloud-play/machine.ts';
import { CloudPlayRunner, type CloudPlayApi } from '../../../cloud-play/session.ts';
import { toDisplayError } from '../../../lib/errors.ts';
import { createLeavingTrpcClient, trpc } from '../../../lib/trpc.ts';

type TrpcClient = ReturnType<typeof trpc.useUtils>['client'];

/**
 * The session's calls over tRPC. Stop when the page goes away must outlive it (keepalive): its own
 * client, made then.
 */
function cloudApiFor(client: TrpcClient, target: { project: string; package: string }): CloudPlayApi {
  return {
    create: () => client.cloudPlay.create.mutate(target),
    init: (token, signal) => client.cloudPlay.init.mutate({ token }, { signal }),
    connect: (token, sdp, signal) => client.cloudPlay.connect.mutate({ token, sdp }, { signal }),
    state: (token, signal) => client.cloudPlay.state.query({ token }, { signal }),
    stop: (token, { leaving }) => (leaving ? createLeavingTrpcClient() : client).cloudPlay.stop.mutate({ token }),
  };
}

export type CloudPlay = {
  status: CloudPlayStatus;
  /** The game's picture and sound (tracks added as they arrive); undefined when no session runs. */
  stream: MediaStream | undefined;
  /** The running session's settings (the game's size for the input). */
  settings: CloudPlaySettings | undefined;
  start(): void;
  stop(): void;
  /** One input message to the game, dropped while the input channel is not open. */
  send(message: Uint8Array<ArrayBuffer>): void;
};

/**
 * The cloud-play page's session (cloud-play/session.ts) as React state. Leaving the page (unmount,
 * or the tab closing) stops the session.
 */
export function useCloudPlay(target: { project: string; package: string }): CloudPlay {
  const { client } = trpc.useUtils();
  const [status, dispatch] = useReducer(cloudPlayReducer, initialCloudPlayStatus);
  const [stream, setStream] = useState<MediaStream>();
  const [settings, setSettings] = useState<CloudPlaySettings>();
  const channelRef = useRef<RTCDataChannel | undefined>(undefined);
  const runnerRef = useRef<CloudPlayRunner | undefined>(undefined);
  const targetKey = `${target.project}/${target.package}`;

  useEffect(() => {
    let trackStream: MediaStream | undefined;
    const runner = new CloudPlayRunner({
      api: cloudApiFor(client, target),
      createPeer: (config) => new RTCPeerConnection(config),
      dispatch,
      describeFailure: toDisplayError,
      onSession: (session) => setSettings(session.settings),
      onTrack: (track) => {
        if (!trackStream) {
          trackStream = new MediaStream([track]);
          setStream(trackStream);
        } else {
          trackStream.addTrack(track);
        }
      },
      onInputChannel: (channel) => {
        channel.binaryType = 'arraybuffer';
        channelRef.current = channel;
      },
      onRunEnd: () => {
        trackStream = undefined;
        channelRef.current = undefined;
        setStream(undefined);
      },
    });
    runnerRef.current = runner;
    const leave = () => runner.leave();
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      runner.leave();
      runnerRef.current = undefined;
    };
    // The runner belongs to one package: another package is another runner.
  }, [targetKey]);

  const start = useCallback(() => runnerRef.current?.start(), []);
  const stop = useCallback(() => runnerRef.current?.stop(), []);
  const send = useCallback((message: Uint8Array<ArrayBuffer>) => {
    const channel = channelRef.current;
    if (channel?.readyState === 'open') channel.send(message);
  }, []);
  return { status, stream, settings, start, stop, send };
}
