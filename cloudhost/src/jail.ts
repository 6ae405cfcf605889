import { lstatSync, readlinkSync } from 'node:fs';
import { ManagedProcess } from './processes.ts';
import { seccompFilter } from './seccomp-filter.ts';

/**
 * One bubblewrap sandbox ("jail") for a process of a session: the game, and the session's own X
 * server, sound server and encoders, which the game talks to and so must be no way out either.
 *
 * Every jail: its own user, IPC, PID, UTS and cgroup namespaces (no nested user namespaces), no
 * capabilities, no_new_privs, a new session, killed with the agent, the seccomp filter of
 * seccomp-policy.ts, the host's /usr and a short list of /etc read-only, its own /proc, /dev and a
 * size-limited /dev/shm, a read-only root, and only the mounts its spec names. Its network is either
 * none (a namespace with only its own loopback) or the host's (the encoders send RTP to the agent on
 * 127.0.0.1).
 *
 * bubblewrap reads its options from a pipe (--args) and the filter from another (--seccomp), so
 * /proc/1/cmdline inside shows `bwrap --args 3 -- COMMAND` and no host path. Only mounts from the session's own
 * tmpfs and system folders: /proc/self/mountinfo names no host folder either.
 */

/** Top-level folders that are links into /usr on merged-/usr systems (Debian 12), or folders elsewhere. */
const systemRoots = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/**
 * What of /etc a jail may read: the dynamic loader's cache, fonts, time zone, alternatives (the
 * /usr/bin links point there), X11, sound and graphics driver settings. Nothing else (no shadow, no
 * host names, not the host's machine-id); passwd, group and machine-id are the session's own.
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
  'mime.types',
  'os-release',
  'pulse',
  'ssl',
  'timezone',
  'vulkan',
  'X11',
] as const;

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

type JailMount =
  /** A host file or folder, read-only (a socket stays connectable). */
  | { kind: 'ro-bind'; from: string; to: string }
  /** A host folder, writable. */
  | { kind: 'bind'; from: string; to: string }
  /** An empty in-memory folder of at most sizeBytes. */
  | { kind: 'tmpfs'; to: string; sizeBytes: number };

export type JailLimits = {
  /** RLIMIT_AS in bytes; 0: none. */
  memoryBytes: number;
  /** RLIMIT_NPROC: of the jail's uid, so per session only when each session has its own uid. */
  processes: number;
  /** RLIMIT_FSIZE in bytes. */
  fileBytes: number;
  /** RLIMIT_NOFILE. */
  openFiles: number;
};

export type JailSpec = {
  network: 'none' | 'host';
  /**
   * The jail's IPC namespace (SysV shared memory): its own, or that of another jail's sandbox (the
   * X server's, so its encoder shares MIT-SHM segments with it and nothing else; needs root).
   */
  ipc?: 'own' | { joinPid: number };
  /** bubblewrap reports the sandbox's pid and namespaces on fd 5 (ManagedProcess.fdText[5]). */
  reportSandbox?: boolean;
  mounts: readonly JailMount[];
  /** Size of the jail's /dev/shm. */
  shmBytes: number;
  /** How the host lays out systemRoots (readHostRoots). */
  hostRoots: Record<string, string>;
  /** The program and its arguments, as the jail sees them. */
  command: readonly string[];
  chdir?: string;
  /** Run as this uid and gid (setpriv; the agent must be root). Undefined: the agent's own user. */
  uid?: number;
  limits: JailLimits;
  env: Record<string, string>;
  programs: { bwrap: string; prlimit: string; setpriv: string; nsenter: string };
};

/** bubblewrap's options for a jail (what goes down the --args pipe; the command follows on the command line). */
export function bwrapArgs(spec: JailSpec, seccompFd: number): string[] {
  const args: string[] = [
    '--unshare-user',
    '--disable-userns',
    ...(spec.ipc === undefined || spec.ipc === 'own' ? ['--unshare-ipc'] : []),
    '--unshare-pid',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(spec.network === 'none' ? ['--unshare-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'cartridge',
    '--seccomp',
    String(seccompFd),
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const root of systemRoots) {
    const layout = spec.hostRoots[root];
    if (layout === undefined) continue;
    if (layout === 'dir') args.push('--ro-bind', root, root);
    else args.push('--symlink', layout, root);
  }
  for (const entry of etcEntries) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  args.push('--proc', '/proc', '--dev', '/dev', '--size', String(spec.shmBytes), '--tmpfs', '/dev/shm');
  for (const mount of spec.mounts) {
    switch (mount.kind) {
      case 'ro-bind':
        args.push('--ro-bind', mount.from, mount.to);
        break;
      case 'bind':
        args.push('--bind', mount.from, mount.to);
        break;
      case 'tmpfs':
        args.push('--size', String(mount.sizeBytes), '--tmpfs', mount.to);
        break;
    }
  }
  // The jail's own root (a tmpfs holding the mount points) becomes read-only too.
  args.push('--remount-ro', '/');
  if (spec.chdir !== undefined) args.push('--chdir', spec.chdir);
  if (spec.reportSandbox) args.push('--info-fd', String(infoFd));
  for (const arg of args) if (arg.includes('\0')) throw new Error('a sandbox argument holds a NUL');
  return args;
}

export type JailCommand = {
  /** The program the agent starts, and its arguments: no path of the session, nothing secret. */
  command: string;
  args: string[];
  env: Record<string, string>;
  /** What the program reads from fds 3 (bubblewrap's arguments) and 4 (the seccomp filter); 5, when asked, it writes. */
  fds: [Uint8Array, Uint8Array, ...'read'[]];
};

const argsFd = 3;
const seccompFd = 4;
const infoFd = 5;

/**
 * The command line of a jail:
 *   prlimit --as --nproc --fsize --nofile --core=0 -- [setpriv --reuid U --regid U --clear-groups --no-new-privs --pdeathsig=KILL --]
 *   bwrap --args 3 -- COMMAND   (the options from the pipe)
 */
export function jailCommand(spec: JailSpec): JailCommand {
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
      : // A new uid clears the parent-death signal ManagedProcess set: set it again for the jail's user.
        [spec.programs.setpriv, `--reuid=${spec.uid}`, `--regid=${spec.uid}`, '--clear-groups', '--no-new-privs', '--pdeathsig=KILL', '--'];
  const encoded = new TextEncoder().encode(bwrapArgs(spec, seccompFd).map((arg) => `${arg}\0`).join(''));
  // The command stays on the command line (bubblewrap wants it there): paths inside the jail only.
  const limited = [spec.programs.prlimit, ...prlimit, ...setpriv, spec.programs.bwrap, '--args', String(argsFd), '--', ...spec.command];
  // Joining another sandbox's IPC namespace happens first, as root (setns), before the limits and the uid.
  const joined = spec.ipc !== undefined && spec.ipc !== 'own' ? [spec.programs.nsenter, `--ipc=/proc/${spec.ipc.joinPid}/ns/ipc`, '--', ...limited] : limited;
  return {
    command: joined[0]!,
    args: joined.slice(1),
    env: spec.env,
    fds: spec.reportSandbox ? [encoded, Buffer.from(seccompFilter.base64, 'base64'), 'read'] : [encoded, Buffer.from(seccompFilter.base64, 'base64')],
  };
}

/** Starts a jail as a ManagedProcess (its own process group, killed with the agent). */
export function startJail(name: string, spec: JailSpec, options: { onStderrLine?: (line: string) => void } = {}): ManagedProcess {
  const jail = jailCommand(spec);
  return new ManagedProcess(name, jail.command, jail.args, { env: jail.env, fds: jail.fds, onStderrLine: options.onStderrLine });
}
