import { readFileSync } from 'node:fs';

/**
 * What the agent needs root for, as capabilities: a user of its own for each session's game and for
 * its servers (setuid, setgid: setpriv before bubblewrap), a tmpfs per session and the video
 * encoder joining its X server's IPC namespace (sys_admin: mount, setns),
 * the session's files made those users' (chown), the agent's reads and removals in folders those
 * users own (dac_override), and stopping their processes (kill). Nothing else: a systemd unit can
 * bound the agent to these (docs/en/cloud-play-hosts.md).
 */
export const agentCapabilities = { chown: 0, dac_override: 1, kill: 5, setgid: 6, setuid: 7, sys_admin: 21 } as const;
export type AgentCapability = keyof typeof agentCapabilities;

/** The effective capabilities of this process (CapEff of /proc/self/status). */
export function effectiveCapabilities(status = readFileSync('/proc/self/status', 'utf8')): bigint {
  const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  return hex === undefined ? 0n : BigInt(`0x${hex}`);
}

/** The capabilities of `wanted` the process lacks. */
export function missingCapabilities(wanted: readonly AgentCapability[], effective = effectiveCapabilities()): AgentCapability[] {
  return wanted.filter((name) => (effective & (1n << BigInt(agentCapabilities[name]))) === 0n);
}
