import type { JailLimits, JailSpec } from './jail.ts';
import type { SessionLayout } from './session-disk.ts';
import { sandboxPulseSocket, sandboxX11Dir } from './sandbox.ts';

/**
 * What the session's own servers and encoders need to be jailed: the game talks to the X server and
 * the sound server, and through them (pixels, sound) to the encoders, so none of them may be a way
 * out. They run as the session's services uid (not the agent's root, not the game's uid), in jails of
 * jail.ts: the X and sound servers with no network at all, the encoders with the host's (they send
 * RTP to the agent on 127.0.0.1), each seeing only the sockets and folders it needs.
 */
export type ServiceJailBase = {
  layout: SessionLayout;
  uid?: number;
  limits: JailLimits;
  hostRoots: Record<string, string>;
  programs: JailSpec['programs'];
};

const smallTmpfs = 16 * 1024 * 1024;
const basePath = '/usr/bin:/bin';

/** Where the sound server keeps its socket, runtime and home inside its jail. */
export const pulseJailDir = '/run/cartridge-sound';

/**
 * Xvfb: its socket folder (/tmp/.X11-unix) is the session's x11/, its /tmp (lock file, compiled
 * keymaps) a small tmpfs; no network, so the abstract socket and any font server or path a client
 * names stay inside. Its own IPC namespace: MIT-SHM reaches no segment of the host's or another
 * session's, only those of its video encoder, which joins it (as root; without, x11grab falls back
 * to GetImage on the socket). A game's own segments are in its own namespace: its XShm fails and
 * Xlib and Mesa fall back to the socket.
 */
export function xvfbJail(base: ServiceJailBase, command: readonly string[]): JailSpec {
  return serverJail(base, { from: base.layout.x11, to: sandboxX11Dir }, command, { PATH: basePath, HOME: '/tmp' });
}

/** PulseAudio: its folder is the session's pulse/ (socket, runtime, home); no network. */
export function pulseJail(base: ServiceJailBase, command: readonly string[]): JailSpec {
  const home = `${pulseJailDir}/home`;
  return serverJail(base, { from: base.layout.pulse, to: pulseJailDir }, command, { PATH: basePath, HOME: home, XDG_RUNTIME_DIR: `${pulseJailDir}/runtime`, XDG_CONFIG_HOME: `${home}/.config` });
}

/** A server of the session (no network): a small /tmp and its one folder of the session, writable. */
function serverJail(base: ServiceJailBase, folder: { from: string; to: string }, command: readonly string[], env: Record<string, string>): JailSpec {
  return {
    network: 'none',
    mounts: [
      { kind: 'tmpfs', to: '/tmp', sizeBytes: smallTmpfs },
      { kind: 'bind', from: folder.from, to: folder.to },
    ],
    shmBytes: smallTmpfs,
    hostRoots: base.hostRoots,
    command,
    uid: base.uid,
    limits: base.limits,
    env,
    programs: base.programs,
  };
}

/**
 * An encoder (ffmpeg): the display's socket or the sound server's, read-only, at the paths the game
 * sees them; the host's network for its RTP to the agent's loopback port; nothing else of the session.
 */
export function encoderJail(base: ServiceJailBase, source: { display: number; ipcOf?: number } | { sound: true }, command: readonly string[]): JailSpec {
  const mount =
    'display' in source
      ? { kind: 'ro-bind' as const, from: base.layout.x11Socket(source.display), to: `${sandboxX11Dir}/X${source.display}` }
      : { kind: 'ro-bind' as const, from: base.layout.pulseSocket, to: sandboxPulseSocket };
  return {
    network: 'host',
    // The video encoder may share the X server's IPC namespace (MIT-SHM instead of copying every
    // frame over the socket): there it finds only the X server, and the X server only it.
    ipc: 'display' in source && source.ipcOf !== undefined ? { joinPid: source.ipcOf } : 'own',
    mounts: [{ kind: 'tmpfs', to: '/tmp', sizeBytes: smallTmpfs }, mount],
    shmBytes: smallTmpfs,
    hostRoots: base.hostRoots,
    command,
    uid: base.uid,
    limits: base.limits,
    // libpulse keeps a cookie in its home: the jail's /tmp.
    env: { PATH: basePath, HOME: '/tmp' },
    programs: base.programs,
  };
}
