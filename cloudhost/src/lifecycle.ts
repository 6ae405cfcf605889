import type { MachineSessionReport } from '../../src/shared/schemas/cloud-play.ts';

/**
 * One session's states as the agent reports them (machineSessionReportSchema):
 *
 *   preparing ──offer made──▶ offered ──answer applied──▶ connecting ──peer connected──▶ playing
 *       │                        │                            │                           │
 *       └────────────────────────┴──────────── end(reason) ───┴───────────────────────────┘
 *                                      ▼                               ▼
 *                                    ended (a normal end)      errored (a failure)
 *
 * A final state never changes again. The reasons of a normal end are the words of
 * cloudSessionStateSchema.reason; a failure carries its error text.
 */
export type SessionState = MachineSessionReport['state'];

const endReasons = ['stopped', 'game_exited', 'idle', 'time_limit', 'peer_left', 'not_connected', 'machine_shutdown'] as const;
export type EndReason = (typeof endReasons)[number];

const next: Record<SessionState, readonly SessionState[]> = {
  preparing: ['offered', 'ended', 'errored'],
  offered: ['connecting', 'playing', 'ended', 'errored'],
  connecting: ['playing', 'ended', 'errored'],
  playing: ['ended', 'errored'],
  ended: [],
  errored: [],
};

export function canMove(from: SessionState, to: SessionState): boolean {
  return next[from].includes(to);
}

export function isFinal(state: SessionState): boolean {
  return state === 'ended' || state === 'errored';
}

/** How long a player may take between the offer and a connected peer before the session ends. */
export const connectTimeoutMs = 120_000;
/** A peer 'disconnected' (ICE consent lost) this long is gone: 'peer_left'. */
export const disconnectGraceMs = 10_000;

export type Limits = { idleSeconds: number; maxSeconds: number };

/**
 * Whether a session must end now for its limits: time_limit counts from the session's start, idle
 * from the last input (or from the moment it started playing), not_connected from the offer.
 */
export function limitReason(
  state: SessionState,
  times: { startedAt: number; offeredAt?: number; playingAt?: number; lastInputAt?: number; now: number },
  limits: Limits,
): EndReason | undefined {
  if (isFinal(state)) return undefined;
  if (times.now - times.startedAt >= limits.maxSeconds * 1000) return 'time_limit';
  if (state === 'playing' && times.playingAt !== undefined) {
    const lastActivity = Math.max(times.playingAt, times.lastInputAt ?? 0);
    if (times.now - lastActivity >= limits.idleSeconds * 1000) return 'idle';
  }
  if ((state === 'offered' || state === 'connecting') && times.offeredAt !== undefined && times.now - times.offeredAt >= connectTimeoutMs) {
    return 'not_connected';
  }
  return undefined;
}

/** The state of one session, its offer and its end reason, as the next provide call reports them. */
export class SessionLifecycle {
  state: SessionState = 'preparing';
  offer: string | undefined;
  reason: string | undefined;
  /** Called after each change (the agent then reports at once). */
  onChange: (state: SessionState) => void = () => undefined;

  constructor(readonly session: string) {}

  /** Moves to `to` when the machine allows it; false (and nothing changes) otherwise. */
  move(to: SessionState, details: { offer?: string; reason?: string } = {}): boolean {
    if (!canMove(this.state, to)) return false;
    this.state = to;
    if (details.offer !== undefined) this.offer = details.offer;
    if (details.reason !== undefined) this.reason = details.reason.slice(0, 1000);
    this.onChange(to);
    return true;
  }

  get final(): boolean {
    return isFinal(this.state);
  }

  report(): MachineSessionReport {
    const report: MachineSessionReport = { session: this.session, state: this.state };
    // The offer goes with every report while the player may still need it (the server keeps the last).
    if (this.offer !== undefined && (this.state === 'offered' || this.state === 'connecting')) report.offer = this.offer;
    if (this.reason !== undefined && this.final) report.reason = this.reason;
    return report;
  }
}
