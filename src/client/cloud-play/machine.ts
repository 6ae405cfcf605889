/**
 * The cloud-play page's states (spec §4) as a pure reducer: no React, no timers, no network. The
 * session runner (session.ts) reports what happened as events; the page shows the state it gives.
 *
 *   not_started ──start──▶ creating_session ──created──▶ awaiting_machine ──offered──▶ connecting
 *        ▲                                                 │   ▲ init_timeout                 │
 *        │                                                 └───┘                    peer_connected
 *        │ stop / ended (not errored)                                                          ▼
 *        └──────────────────────── any live state ◀────────────────────────────────────── playing
 *   failed / ended (errored): any live state ──▶ error ──start──▶ creating_session
 *
 * Live states are creating_session, awaiting_machine, connecting and playing. An event that does not
 * apply to the current state leaves it as it is (the same object), so late reports of a finished
 * session (a peer closing after Stop) change nothing.
 */
import type { CloudPlayState } from '../../shared/schemas/cloud-play.ts';

/** A failed call as the page shows it (lib/errors.ts DisplayError): its code, catalogued or raw. */
export type CloudPlayFailure = { code: string; status?: number; statusText?: string; details?: unknown };

export type CloudPlayStatus =
  /** `ended`: why the previous session ended ('stopped', 'game_exited', 'idle', ...), if there was one. */
  | { state: 'not_started'; ended?: string }
  | { state: 'creating_session' }
  /** `waits`: how many times session init answered timeout so far. */
  | { state: 'awaiting_machine'; waits: number }
  | { state: 'connecting' }
  | { state: 'playing' }
  /** A call failed (`failure`), or the session ended in error (`reason`, a word or the agent's text). */
  | { state: 'error'; failure?: CloudPlayFailure; reason?: string };

export type CloudPlayEvent =
  | { type: 'start' }
  | { type: 'created' }
  | { type: 'init_timeout' }
  | { type: 'offered' }
  | { type: 'peer_connected' }
  | { type: 'failed'; failure: CloudPlayFailure }
  | { type: 'ended'; reason: string; errored: boolean }
  | { type: 'stop' };

export const initialCloudPlayStatus: CloudPlayStatus = { state: 'not_started' };

const liveStates: readonly CloudPlayState[] = ['creating_session', 'awaiting_machine', 'connecting', 'playing'];

/** A session exists (or is being made) that Stop ends. */
export function isLive(status: CloudPlayStatus): boolean {
  return liveStates.includes(status.state);
}

/** Start is offered while nothing runs: before the first session, after one ended, after an error. */
export function canStart(status: CloudPlayStatus): boolean {
  return status.state === 'not_started' || status.state === 'error';
}

/** Fullscreen only while the game shows (spec §2). */
export function canFullscreen(status: CloudPlayStatus): boolean {
  return status.state === 'playing';
}

export function canStop(status: CloudPlayStatus): boolean {
  return isLive(status);
}

export function cloudPlayReducer(status: CloudPlayStatus, event: CloudPlayEvent): CloudPlayStatus {
  switch (event.type) {
    case 'start':
      return canStart(status) ? { state: 'creating_session' } : status;
    case 'created':
      return status.state === 'creating_session' ? { state: 'awaiting_machine', waits: 0 } : status;
    case 'init_timeout':
      return status.state === 'awaiting_machine' ? { state: 'awaiting_machine', waits: status.waits + 1 } : status;
    case 'offered':
      return status.state === 'awaiting_machine' ? { state: 'connecting' } : status;
    case 'peer_connected':
      return status.state === 'connecting' ? { state: 'playing' } : status;
    case 'failed':
      return isLive(status) ? { state: 'error', failure: event.failure } : status;
    case 'ended':
      if (!isLive(status)) return status;
      return event.errored ? { state: 'error', reason: event.reason } : { state: 'not_started', ended: event.reason };
    case 'stop':
      return isLive(status) ? { state: 'not_started', ended: 'stopped' } : status;
  }
}
