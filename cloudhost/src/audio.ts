import { existsSync, mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { ManagedProcess, waitFor } from './processes.ts';

/** The sink the game plays into; ffmpeg records its monitor. */
export const sinkName = 'game';

/**
 * One PulseAudio server per session, so sessions never hear each other: no configuration files (-n),
 * no D-Bus, no shared memory, never exiting on idle, one unix socket (anonymous access: only the
 * agent, its ffmpeg and the session's sandbox, which binds this socket alone, can reach it) and one
 * null sink, which is the default sink.
 */
export function pulseArgs(socketPath: string): string[] {
  return [
    '--daemonize=no',
    '-n',
    '--system=false',
    '--use-pid-file=false',
    '--exit-idle-time=-1',
    '--disallow-exit',
    '--disable-shm=true',
    '--log-target=stderr',
    '--log-level=error',
    `--load=module-native-protocol-unix socket=${socketPath} auth-anonymous=1`,
    `--load=module-null-sink sink_name=${sinkName} rate=48000 channels=2 sink_properties=device.description=Cartridge`,
  ];
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

export type AudioServer = { process: ManagedProcess; socketPath: string };

/** Starts the session's PulseAudio in `dir` (its runtime and home folders live there) and waits for its socket. */
export async function startPulse(program: string, dir: string): Promise<AudioServer> {
  const runtime = join(dir, 'runtime');
  const home = join(dir, 'home');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const socketPath = join(dir, 'native');
  const pulse = new ManagedProcess('pulseaudio', program, pulseArgs(socketPath), {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: join(home, '.config') },
  });
  try {
    await waitFor(async () => existsSync(socketPath) && (await canConnect(socketPath)), {
      timeoutMs: 10_000,
      what: 'pulseaudio',
      failed: () => (pulse.running ? undefined : `exited (${pulse.stderrTail() || `code ${pulse.exitInfo?.code}`})`),
    });
  } catch (error) {
    await pulse.stop();
    throw error;
  }
  return { process: pulse, socketPath };
}
