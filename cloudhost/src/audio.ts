import { existsSync } from 'node:fs';
import { chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { canConnect } from './display.ts';
import { startJail } from './jail.ts';
import { waitFor, type ManagedProcess } from './processes.ts';
import { pulseJail, pulseJailDir, type ServiceJailBase } from './services.ts';

/** The sink the game plays into; ffmpeg records its monitor. */
export const sinkName = 'game';

/**
 * One PulseAudio server per session, so sessions never hear each other: no configuration files (-n),
 * no D-Bus, no shared memory, no realtime or priority requests, never exiting on idle, one unix
 * socket (anonymous access: only the agent's encoder and the session's sandbox, which binds this
 * socket alone, can reach it) and one null sink, the default. Then module loading is closed
 * (--disallow-module-loading applies after the --load lines): a client cannot load a module, so
 * cannot make the server open a file, a port, a connection or a plugin; what it can still do
 * (volumes, its own streams, the sink) touches only this session.
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
    '--realtime=false',
    '--high-priority=false',
    '--log-target=stderr',
    '--log-level=error',
    `--load=module-native-protocol-unix socket=${socketPath} auth-anonymous=1`,
    `--load=module-null-sink sink_name=${sinkName} rate=48000 channels=2 sink_properties=device.description=Cartridge`,
    '--disallow-module-loading=true',
  ];
}

export type AudioServer = { process: ManagedProcess; socketPath: string };

/** Starts the session's PulseAudio in its jail (its folder: the session's pulse/) and waits for its socket. */
export async function startPulse(base: ServiceJailBase, program: string): Promise<AudioServer> {
  const dir = base.layout.pulse;
  for (const sub of ['runtime', 'home']) {
    await mkdir(join(dir, sub), { recursive: true, mode: 0o700 });
    // PulseAudio refuses a runtime folder that is not its own user's.
    if (base.uid !== undefined) await chown(join(dir, sub), base.uid, base.uid);
  }
  const socketPath = base.layout.pulseSocket;
  const pulse = startJail('pulseaudio', pulseJail(base, [program, ...pulseArgs(`${pulseJailDir}/native`)]));
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
