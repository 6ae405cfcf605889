import { lstatSync, readlinkSync } from 'node:fs';
import { describeBadName } from '../../src/shared/archive/paths.ts';
import { x11SocketOf } from './display.ts';

/** Where things are inside the sandbox. */
export const sandboxHome = '/home/player';
export const sandboxGameDir = `${sandboxHome}/game`;
export const sandboxPulseSocket = '/run/cartridge/pulse';

/** Top-level folders that are links into /usr on merged-/usr systems (Debian 12), or folders elsewhere. */
export const systemRoots = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/**
 * What of /etc a game may read: the dynamic loader's cache, fonts, time zone, alternatives (the
 * /usr/bin links point there), X11, sound and graphics driver settings. Nothing else (no shadow, no
 * machine secrets, no host names); passwd and group are the session's own.
 */
export const etcEntries = [
  'alsa',
  'alternatives',
  'asound.conf',
  'drirc',
  'fonts',
  'glvnd',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'machine-id',
  'mime.types',
  'os-release',
  'pulse',
  'ssl',
  'timezone',
  'vulkan',
  'X11',
] as const;

export type SandboxLimits = {
  /** RLIMIT_AS in bytes; 0: none. */
  memoryBytes: number;
  /** RLIMIT_NPROC. */
  processes: number;
  /** RLIMIT_FSIZE in bytes. */
  fileBytes: number;
  /** RLIMIT_NOFILE. */
  openFiles: number;
};

export type SandboxSpec = {
  /** Host folders of the session: home (writable, holds game/), tmp (writable, the game's /tmp), etc (passwd, group). */
  homeDir: string;
  tmpDir: string;
  etcDir: string;
  /** The entrypoint's path parts inside the game folder. */
  entrypoint: readonly string[];
  display: number;
  pulseSocket?: string;
  /** Run as this uid and gid (setpriv; the agent must be root). Undefined: the agent's own user. */
  uid?: number;
  limits: SandboxLimits;
  programs: { bwrap: string; prlimit: string; setpriv: string };
  /** How the host lays out systemRoots: a link's target ('usr/bin'), 'dir', or absent. */
  hostRoots: Record<string, string>;
};

export type SandboxCommand = { command: string; args: string[]; env: Record<string, string>; entrypointInside: string };

/** The host's top-level system folders as systemRoots sees them (links are recreated, folders bound). */
export function readHostRoots(): Record<string, string> {
  const roots: Record<string, string> = {};
  for (const path of systemRoots) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) roots[path] = readlinkSync(path);
      else if (stat.isDirectory()) roots[path] = 'dir';
    } catch {
      // Absent on this host.
    }
  }
  return roots;
}

/** The entrypoint's parts, refused when any is not a plain name (the archive's own name rule). */
export function checkEntrypoint(parts: readonly string[]): string[] {
  if (parts.length === 0) throw new Error('the package has no entrypoint');
  for (const part of parts) {
    const problem = describeBadName(part);
    if (problem !== undefined) throw new Error(`bad entrypoint: ${problem}`);
  }
  return [...parts];
}

/**
 * The game's command line:
 *
 *   prlimit --as --nproc --fsize --nofile --core=0 -- [setpriv --reuid U --regid U --clear-groups --no-new-privs --pdeathsig=KILL --]
 *   bwrap --unshare-user --unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup-try
 *         --die-with-parent --new-session --cap-drop ALL --hostname cartridge
 *         --ro-bind /usr /usr, links or read-only binds of /bin /sbin /lib*, read-only parts of /etc,
 *         the session's passwd and group, --proc /proc --dev /dev,
 *         --bind HOME /home/player --bind TMP /tmp (the only writable places, both in the session folder),
 *         --ro-bind the display's socket and the session's PulseAudio socket, --remount-ro /,
 *         --chdir (the entrypoint's folder) -- /home/player/game/ENTRYPOINT
 *
 * No network (a namespace with only its own loopback), no other process visible, nothing of the
 * host's home folders, /var, /run or /tmp; killed with the agent (--die-with-parent). Writable: the
 * session's home and tmp (on disk, in the session folder) and /dev/shm (the sandbox's own tmpfs).
 */
export function sandboxCommand(spec: SandboxSpec): SandboxCommand {
  const parts = checkEntrypoint(spec.entrypoint);
  const entrypointInside = `${sandboxGameDir}/${parts.join('/')}`;
  const workingDir = parts.length > 1 ? `${sandboxGameDir}/${parts.slice(0, -1).join('/')}` : sandboxGameDir;

  const bwrap: string[] = [
    '--unshare-user',
    '--unshare-ipc',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'cartridge',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const root of systemRoots) {
    const layout = spec.hostRoots[root];
    if (layout === undefined) continue;
    if (layout === 'dir') bwrap.push('--ro-bind', root, root);
    else bwrap.push('--symlink', layout, root);
  }
  for (const entry of etcEntries) bwrap.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  bwrap.push('--ro-bind', `${spec.etcDir}/passwd`, '/etc/passwd', '--ro-bind', `${spec.etcDir}/group`, '/etc/group');
  bwrap.push('--proc', '/proc', '--dev', '/dev');
  bwrap.push('--bind', spec.tmpDir, '/tmp', '--bind', spec.homeDir, sandboxHome);
  bwrap.push('--ro-bind', x11SocketOf(spec.display), x11SocketOf(spec.display));
  if (spec.pulseSocket !== undefined) bwrap.push('--ro-bind', spec.pulseSocket, sandboxPulseSocket);
  // The sandbox's own root (a tmpfs holding the mount points) becomes read-only too.
  bwrap.push('--remount-ro', '/', '--chdir', workingDir, '--', entrypointInside);

  const limits = spec.limits;
  const prlimit = [
    ...(limits.memoryBytes > 0 ? [`--as=${limits.memoryBytes}:${limits.memoryBytes}`] : []),
    `--nproc=${limits.processes}:${limits.processes}`,
    `--fsize=${limits.fileBytes}:${limits.fileBytes}`,
    `--nofile=${limits.openFiles}:${limits.openFiles}`,
    '--core=0:0',
    '--',
  ];
  const setpriv =
    spec.uid === undefined
      ? []
      : // A new uid clears the parent-death signal ManagedProcess set: set it again for the game's user.
        [spec.programs.setpriv, `--reuid=${spec.uid}`, `--regid=${spec.uid}`, '--clear-groups', '--no-new-privs', '--pdeathsig=KILL', '--'];

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
  if (spec.pulseSocket !== undefined) env.PULSE_SERVER = `unix:${sandboxPulseSocket}`;

  return { command: spec.programs.prlimit, args: [...prlimit, ...setpriv, spec.programs.bwrap, ...bwrap], env, entrypointInside };
}

/** The session's /etc/passwd and /etc/group: one user, 'player', with the game's uid and gid. */
export function identityFiles(uid: number, gid: number): { passwd: string; group: string } {
  return {
    passwd: `root:x:0:0:root:/root:/usr/sbin/nologin\nplayer:x:${uid}:${gid}:Player:${sandboxHome}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\nplayer:x:${gid}:\nnogroup:x:65534:\n`,
  };
}
