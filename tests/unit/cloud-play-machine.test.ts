import { describe, expect, test } from 'bun:test';
import {
  canFullscreen,
  canStart,
  canStop,
  cloudPlayReducer,
  initialCloudPlayStatus,
  isLive,
  type CloudPlayEvent,
  type CloudPlayStatus,
} from '../../src/client/cloud-play/machine.ts';
import { cloudPlayStates } from '../../src/shared/schemas/cloud-play.ts';

/** One status of each state (spec §4), and the previous session's end for not_started. */
const statuses: Record<string, CloudPlayStatus> = {
  not_started: { state: 'not_started' },
  not_started_after_end: { state: 'not_started', ended: 'game_exited' },
  creating_session: { state: 'creating_session' },
  awaiting_machine: { state: 'awaiting_machine', waits: 2 },
  connecting: { state: 'connecting' },
  playing: { state: 'playing' },
  error: { state: 'error', failure: { code: 'network' } },
};

const failure = { code: 'not_supported', status: 400 };
const events: Record<string, CloudPlayEvent> = {
  start: { type: 'start' },
  created: { type: 'created' },
  init_timeout: { type: 'init_timeout' },
  offered: { type: 'offered' },
  peer_connected: { type: 'peer_connected' },
  failed: { type: 'failed', failure },
  ended: { type: 'ended', reason: 'idle', errored: false },
  ended_errored: { type: 'ended', reason: 'machine_lost', errored: true },
  stop: { type: 'stop' },
};

/** Every (status, event) pair: what it becomes; pairs not listed leave the status as it is (the same object). */
const transitions: Record<string, Record<string, CloudPlayStatus>> = {
  not_started: { start: { state: 'creating_session' } },
  not_started_after_end: { start: { state: 'creating_session' } },
  error: { start: { state: 'creating_session' } },
  creating_session: {
    created: { state: 'awaiting_machine', waits: 0 },
    failed: { state: 'error', failure },
    ended: { state: 'not_started', ended: 'idle' },
    ended_errored: { state: 'error', reason: 'machine_lost' },
    stop: { state: 'not_started', ended: 'stopped' },
  },
  awaiting_machine: {
    init_timeout: { state: 'awaiting_machine', waits: 3 },
    offered: { state: 'connecting' },
    failed: { state: 'error', failure },
    ended: { state: 'not_started', ended: 'idle' },
    ended_errored: { state: 'error', reason: 'machine_lost' },
    stop: { state: 'not_started', ended: 'stopped' },
  },
  connecting: {
    peer_connected: { state: 'playing' },
    failed: { state: 'error', failure },
    ended: { state: 'not_started', ended: 'idle' },
    ended_errored: { state: 'error', reason: 'machine_lost' },
    stop: { state: 'not_started', ended: 'stopped' },
  },
  playing: {
    failed: { state: 'error', failure },
    ended: { state: 'not_started', ended: 'idle' },
    ended_errored: { state: 'error', reason: 'machine_lost' },
    stop: { state: 'not_started', ended: 'stopped' },
  },
};

describe('cloud-play page state machine', () => {
  test('starts not_started, and every state of the spec is covered', () => {
    expect(initialCloudPlayStatus).toEqual({ state: 'not_started' });
    expect(new Set(Object.values(statuses).map((status) => status.state))).toEqual(new Set(cloudPlayStates));
  });

  for (const [statusName, status] of Object.entries(statuses)) {
    for (const [eventName, event] of Object.entries(events)) {
      const expected = transitions[statusName]?.[eventName];
      test(`${statusName} + ${eventName} → ${expected ? expected.state : 'unchanged'}`, () => {
        const next = cloudPlayReducer(status, event);
        if (expected) expect(next).toEqual(expected);
        else expect(next).toBe(status);
      });
    }
  }

  test('the whole way: start → created → two timeouts → offered → connected → stop', () => {
    const path: CloudPlayEvent[] = [events.start!, events.created!, events.init_timeout!, events.init_timeout!, events.offered!, events.peer_connected!];
    const seen: CloudPlayStatus[] = [];
    let status = initialCloudPlayStatus;
    for (const event of path) {
      status = cloudPlayReducer(status, event);
      seen.push(status);
    }
    expect(seen.map((item) => item.state)).toEqual(['creating_session', 'awaiting_machine', 'awaiting_machine', 'awaiting_machine', 'connecting', 'playing']);
    expect(seen[3]).toEqual({ state: 'awaiting_machine', waits: 2 });
    status = cloudPlayReducer(status, events.stop!);
    expect(status).toEqual({ state: 'not_started', ended: 'stopped' });
    // Start again after the end.
    expect(cloudPlayReducer(status, events.start!)).toEqual({ state: 'creating_session' });
  });

  test('buttons: Start while nothing runs, Fullscreen while playing, Stop while live', () => {
    const table = Object.fromEntries(Object.entries(statuses).map(([name, status]) => [name, [canStart(status), canFullscreen(status), canStop(status), isLive(status)]]));
    expect(table).toEqual({
      not_started: [true, false, false, false],
      not_started_after_end: [true, false, false, false],
      creating_session: [false, false, true, true],
      awaiting_machine: [false, false, true, true],
      connecting: [false, false, true, true],
      playing: [false, true, true, true],
      error: [true, false, false, false],
    });
  });
});
