import { existsSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { startJail } from './jail.ts';
import { waitFor, type ManagedProcess } from './processes.ts';
import { xvfbJail, type ServiceJailBase } from './services.ts';

/**
 * Whether a display number is taken in the host's network namespace: an X server there listens on the
 * abstract socket @/tmp/.X11-unix/X<n>, which libxcb tries before any socket file, so an encoder (on
 * the host's network) would reach that server instead of the session's. The session's own servers
 * live in namespaces of their own and leave nothing on the host (no lock file, no socket in /tmp).
 */
export function displayInUse(display: number, netUnix = readNetUnix()): boolean {
  return netUnix.includes(` @/tmp/.X11-unix/X${display}\n`);
}

function readNetUnix(): string {
  try {
    return `${readFileSync('/proc/net/unix', 'utf8')}\n`;
  } catch {
    return '';
  }
}

/**
 * Xvfb's command: one screen of the session's size at 24 bits, no TCP, never resetting when its last
 * client leaves. XTEST (the agent's input) and RECORD share one switch in the X server, so both stay;
 * both only ever see the session's own display.
 */
export function xvfbArgs(display: number, width: number, height: number): string[] {
  return [`:${display}`, '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-noreset', '-dpi', '96'];
}

export function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export type DisplayServer = {
  process: ManagedProcess;
  /** The pid (on the host) of its sandbox, whose IPC namespace its video encoder may join, and that namespace. */
  sandbox: { pid: number; ipcNamespace: number } | undefined;
};

/** bubblewrap's --info-fd report: {"child-pid": N, "ipc-namespace": N, ...}, once it is whole. */
export function readSandboxInfo(text: string): { pid: number; ipcNamespace: number } | undefined {
  try {
    const info = JSON.parse(text) as Record<string, unknown>;
    const pid = info['child-pid'];
    const ipcNamespace = info['ipc-namespace'];
    return typeof pid === 'number' && typeof ipcNamespace === 'number' ? { pid, ipcNamespace } : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the session's Xvfb in its jail and resolves once its socket (x11/X<display>) accepts connections. */
export async function startXvfb(base: ServiceJailBase, program: string, display: number, width: number, height: number): Promise<DisplayServer> {
  const socket = base.layout.x11Socket(display);
  const xvfb = startJail('Xvfb', { ...xvfbJail(base, [program, ...xvfbArgs(display, width, height)]), reportSandbox: true });
  try {
    await waitFor(async () => existsSync(socket) && (await canConnect(socket)), {
      timeoutMs: 10_000,
      what: `Xvfb :${display}`,
      failed: () => (xvfb.running ? undefined : `exited (${xvfb.stderrTail() || `code ${xvfb.exitInfo?.code}`})`),
    });
  } catch (error) {
    await xvfb.stop();
    throw error;
  }
  return { process: xvfb, sandbox: readSandboxInfo(xvfb.fdText[5] ?? '') };
}
