import { randomBytes } from 'node:crypto';
import { describeBadName } from '../../src/shared/archive/paths.ts';
import type { JailLimits, JailSpec } from './jail.ts';
import type { SessionLayout } from './session-disk.ts';

/** Where things are inside the game's sandbox. */
const sandboxHome = '/home/player';
const sandboxGameDir = `${sandboxHome}/game`;
export const sandboxPulseSocket = '/run/cartridge/pulse';
export const sandboxX11Dir = '/tmp/.X11-unix';

/** The entrypoint's parts, refused when any is not a plain name (the archive's own name rule). */
export function checkEntrypoint(parts: readonly string[]): string[] {
  if (parts.length === 0) throw new Error('the package has no entrypoint');
  for (const part of parts) {
    const problem = describeBadName(part);
    if (problem !== undefined) throw new Error(`bad entrypoint: ${problem}`);
  }
  return [...parts];
}

export type GameSandbox = {
  layout: SessionLayout;
  /** The entrypoint's path parts inside the game folder. */
  entrypoint: readonly string[];
  display: number;
  withSound: boolean;
  uid?: number;
  limits: JailLimits;
  /** The game's /dev/shm. */
  shmBytes: number;
  programs: JailSpec['programs'];
  hostRoots: Record<string, string>;
};

/**
 * The game's jail: no network, the session's home (/home/player, holding game/) and /tmp writable
 * (both on the session's size-limited tmpfs), its own passwd, group and machine-id, and the sockets
 * of the session's own display and sound server. Nothing of the host's home folders, /var, /run or
 * /tmp.
 */
export function gameJail(spec: GameSandbox): JailSpec & { entrypointInside: string } {
  const parts = checkEntrypoint(spec.entrypoint);
  const entrypointInside = `${sandboxGameDir}/${parts.join('/')}`;
  const workingDir = parts.length > 1 ? `${sandboxGameDir}/${parts.slice(0, -1).join('/')}` : sandboxGameDir;
  const { layout } = spec;
  const mounts: JailSpec['mounts'] = [
    { kind: 'ro-bind', from: `${layout.etc}/passwd`, to: '/etc/passwd' },
    { kind: 'ro-bind', from: `${layout.etc}/group`, to: '/etc/group' },
    { kind: 'ro-bind', from: `${layout.etc}/machine-id`, to: '/etc/machine-id' },
    { kind: 'bind', from: layout.tmp, to: '/tmp' },
    { kind: 'bind', from: layout.home, to: sandboxHome },
    { kind: 'ro-bind', from: layout.x11Socket(spec.display), to: `${sandboxX11Dir}/X${spec.display}` },
    ...(spec.withSound ? [{ kind: 'ro-bind' as const, from: layout.pulseSocket, to: sandboxPulseSocket }] : []),
  ];
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: sandboxHome,
    USER: 'player',
    LOGNAME: 'player',
    LANG: 'C.UTF-8',
    TMPDIR: '/tmp',
    XDG_RUNTIME_DIR: '/tmp',
    XDG_SESSION_TYPE: 'x11',
    DISPLAY: `:${spec.display}`,
  };
  if (spec.withSound) env.PULSE_SERVER = `unix:${sandboxPulseSocket}`;
  return {
    network: 'none',
    mounts,
    shmBytes: spec.shmBytes,
    hostRoots: spec.hostRoots,
    command: [entrypointInside],
    chdir: workingDir,
    uid: spec.uid,
    limits: spec.limits,
    env,
    programs: spec.programs,
    entrypointInside,
  };
}

/** The session's /etc/passwd and /etc/group: one user, 'player', with the game's uid and gid. */
export function identityFiles(uid: number, gid: number): { passwd: string; group: string } {
  return {
    passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\nplayer:x:${uid}:${gid}:Player:${sandboxHome}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\nplayer:x:${gid}:\nnogroup:x:65534:\n`,
  };
}

/** A machine id of the session's own (D-Bus and games read /etc/machine-id to tell machines apart). */
export function newMachineId(): string {
  return `${randomBytes(16).toString('hex')}\n`;
}
