import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import { ManagedProcess, waitFor } from './processes.ts';

export const x11SocketDir = '/tmp/.X11-unix';
export const x11SocketOf = (display: number) => `${x11SocketDir}/X${display}`;

/** Whether a display number looks taken on this machine (its lock file or socket exists). */
export function displayInUse(display: number): boolean {
  return existsSync(`/tmp/.X${display}-lock`) || existsSync(x11SocketOf(display));
}

/**
 * Xvfb's command: one screen of the session's size at 24 bits, no TCP. It keeps the unix socket in
 * /tmp/.X11-unix (the sandbox binds only that one socket; abstract sockets stay in the host's
 * network namespace, which the game does not share) and does not reset when its last client leaves.
 */
export function xvfbArgs(display: number, width: number, height: number): string[] {
  return [`:${display}`, '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-noreset', '-dpi', '96'];
}

function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts Xvfb on `display` and resolves once its socket accepts connections. */
export async function startXvfb(program: string, display: number, width: number, height: number): Promise<ManagedProcess> {
  const xvfb = new ManagedProcess('Xvfb', program, xvfbArgs(display, width, height), { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  try {
    await waitFor(async () => existsSync(x11SocketOf(display)) && (await canConnect(x11SocketOf(display))), {
      timeoutMs: 10_000,
      what: `Xvfb :${display}`,
      failed: () => (xvfb.running ? undefined : `exited (${xvfb.stderrTail() || `code ${xvfb.exitInfo?.code}`})`),
    });
  } catch (error) {
    await xvfb.stop();
    throw error;
  }
  return xvfb;
}
