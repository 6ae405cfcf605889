import type { CloudPlaySettings, IceServer } from '../../shared/schemas/cloud-play.ts';
import { ConfigError } from './config-error.ts';
import type { SettingValues } from './settings.ts';

/**
 * Cloud play (domains/cloud-play): the ICE servers players and agents use (TURN credentials: never
 * logged), the stream settings, and the protocol's timings in milliseconds: how long a session may
 * wait for a machine, for the player's connect and for playing to start (connectMs); when a silent
 * machine is lost (machineTimeoutMs); how long a provide call is held (heartbeatMs); how long a
 * player's init is held for the offer (initHoldMs). Derived from these: how often every serving
 * process records that it is alive (servingBeatMs) and the longest pause of those records that is
 * not yet a gap in serving (servingGapMs: domains/cloud-play/serving-clock.ts).
 */
export type CloudPlayConfig = {
  iceServers: IceServer[];
  settings: CloudPlaySettings;
  connectMs: number;
  machineTimeoutMs: number;
  heartbeatMs: number;
  initHoldMs: number;
  servingBeatMs: number;
  servingGapMs: number;
};

export function cloudPlayConfigOf(values: SettingValues): CloudPlayConfig {
  const heartbeatMs = Math.round(values.CLOUD_PLAY_HEARTBEAT_SECONDS * 1000);
  const machineTimeoutMs = Math.round(values.CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS * 1000);
  // An agent calls again within a heartbeat: a timeout no longer than that would lose live machines.
  if (heartbeatMs >= machineTimeoutMs) {
    throw new ConfigError(
      `Invalid CLOUD_PLAY_HEARTBEAT_SECONDS=${JSON.stringify(String(values.CLOUD_PLAY_HEARTBEAT_SECONDS))}: must be below CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS (${values.CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS})`,
    );
  }
  return {
    iceServers: values.CLOUD_PLAY_ICE_SERVERS,
    settings: {
      width: values.CLOUD_PLAY_WIDTH,
      height: values.CLOUD_PLAY_HEIGHT,
      fps: values.CLOUD_PLAY_FPS,
      idleSeconds: values.CLOUD_PLAY_IDLE_SECONDS,
      maxSeconds: values.CLOUD_PLAY_MAX_SECONDS,
    },
    connectMs: Math.round(values.CLOUD_PLAY_CONNECT_SECONDS * 1000),
    machineTimeoutMs,
    heartbeatMs,
    initHoldMs: Math.round(values.CLOUD_PLAY_INIT_HOLD_SECONDS * 1000),
    ...servingClockTimings(machineTimeoutMs, heartbeatMs),
  };
}

/**
 * A pause of the serving processes' records shorter than servingGapMs is counted as serving time, so
 * it must fit, with a held provide call (heartbeat) and the agent's retry wait (at most 2.4 s), in the
 * machine timeout: a third of what the timeout leaves beyond the heartbeat (default 30 - 20 s: 3.3 s),
 * at least 1 s, at most 10 s. The processes record four times per gap.
 */
export function servingClockTimings(machineTimeoutMs: number, heartbeatMs: number): { servingBeatMs: number; servingGapMs: number } {
  const servingGapMs = Math.min(10_000, Math.max(1000, Math.round((machineTimeoutMs - heartbeatMs) / 3)));
  return { servingBeatMs: Math.max(250, Math.round(servingGapMs / 4)), servingGapMs };
}
