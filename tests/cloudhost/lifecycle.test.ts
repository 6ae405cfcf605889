import { describe, expect, test } from 'bun:test';
import { canMove, connectTimeoutMs, isFinal, limitReason, SessionLifecycle, type SessionState } from '../../cloudhost/src/lifecycle.ts';
import { machineSessionReportSchema } from '../../src/shared/schemas/cloud-play.ts';
import { backoffMs } from '../../cloudhost/src/agent.ts';
import { describeError, redactText, redactUrl } from '../../cloudhost/src/log.ts';

const states: SessionState[] = ['preparing', 'offered', 'connecting', 'playing', 'ended', 'errored'];

describe('session lifecycle', () => {
  test('the allowed moves, and none out of a final state', () => {
    const allowed = states.flatMap((from) => states.filter((to) => canMove(from, to)).map((to) => `${from}>${to}`));
    expect(allowed).toEqual([
      'preparing>offered',
      'preparing>ended',
      'preparing>errored',
      'offered>connecting',
      'offered>playing',
      'offered>ended',
      'offered>errored',
      'connecting>playing',
      'connecting>ended',
      'connecting>errored',
      'playing>ended',
      'playing>errored',
    ]);
    expect(states.filter(isFinal)).toEqual(['ended', 'errored']);
  });

  test('a session walks preparing → offered → connecting → playing → ended; the reports fit the schema', () => {
    const lifecycle = new SessionLifecycle('s1');
    const seen: SessionState[] = [];
    lifecycle.onChange = (state) => seen.push(state);
    expect(lifecycle.report()).toEqual({ session: 's1', state: 'preparing' });
    const offer = JSON.stringify({ type: 'offer', sdp: 'v=0\r\n' });
    expect(lifecycle.move('offered', { offer })).toBe(true);
    expect(lifecycle.report()).toEqual({ session: 's1', state: 'offered', offer });
    expect(lifecycle.move('connecting')).toBe(true);
    expect(lifecycle.report().offer).toBe(offer);
    expect(lifecycle.move('preparing')).toBe(false);
    expect(lifecycle.move('playing')).toBe(true);
    expect(lifecycle.report()).toEqual({ session: 's1', state: 'playing' });
    expect(lifecycle.move('ended', { reason: 'idle' })).toBe(true);
    expect(lifecycle.final).toBe(true);
    // Final: nothing moves it again, not even another end.
    expect(lifecycle.move('errored', { reason: 'late' })).toBe(false);
    expect(lifecycle.report()).toEqual({ session: 's1', state: 'ended', reason: 'idle' });
    expect(seen).toEqual(['offered', 'connecting', 'playing', 'ended']);
    for (const report of [lifecycle.report()]) expect(machineSessionReportSchema.parse(report)).toEqual(report);
  });

  test('an error text is cut to the schema’s 1000 characters', () => {
    const lifecycle = new SessionLifecycle('s2');
    lifecycle.move('errored', { reason: 'x'.repeat(5000) });
    expect(machineSessionReportSchema.parse(lifecycle.report()).reason).toHaveLength(1000);
  });

  test('limits: time_limit from the start, idle from the last input or from playing, not_connected from the offer', () => {
    const limits = { idleSeconds: 60, maxSeconds: 600 };
    const startedAt = 1_000_000;
    const at = (seconds: number) => startedAt + seconds * 1000;
    expect(limitReason('preparing', { startedAt, now: at(599) }, limits)).toBeUndefined();
    expect(limitReason('preparing', { startedAt, now: at(600) }, limits)).toBe('time_limit');
    expect(limitReason('playing', { startedAt, playingAt: at(10), now: at(69) }, limits)).toBeUndefined();
    expect(limitReason('playing', { startedAt, playingAt: at(10), now: at(70) }, limits)).toBe('idle');
    expect(limitReason('playing', { startedAt, playingAt: at(10), lastInputAt: at(100), now: at(159) }, limits)).toBeUndefined();
    expect(limitReason('playing', { startedAt, playingAt: at(10), lastInputAt: at(100), now: at(160) }, limits)).toBe('idle');
    // No idle end before playing (the player has not connected yet), but not forever.
    expect(limitReason('offered', { startedAt, offeredAt: at(5), now: at(5) + connectTimeoutMs - 1 }, limits)).toBeUndefined();
    expect(limitReason('connecting', { startedAt, offeredAt: at(5), now: at(5) + connectTimeoutMs }, limits)).toBe('not_connected');
    expect(limitReason('ended', { startedAt, now: at(10_000) }, limits)).toBeUndefined();
  });
});

describe('agent helpers', () => {
  test('reconnection backoff: 1 s then 2 s while the server is unreachable (well within the machine timeout); doubling to 60 s while refused; with jitter', () => {
    for (let i = 0; i < 50; i++) {
      expect(backoffMs(1, false)).toBeWithin(800, 1201);
      expect(backoffMs(2, false)).toBeWithin(1600, 2401);
      expect(backoffMs(3, false)).toBeWithin(1600, 2401);
      expect(backoffMs(20, false)).toBeWithin(1600, 2401);
      expect(backoffMs(3, true)).toBeWithin(3200, 4801);
      expect(backoffMs(20, true)).toBeWithin(48_000, 72_001);
    }
  });

  test('signed URLs and tokens never reach a log line whole', () => {
    const signed = 'http://127.0.0.1:3000/api/files/pk1/archive/1767225600/c2lnbmF0dXJlc2VjcmV0/Game.crt';
    expect(redactUrl(signed)).toBe('http://127.0.0.1:3000/api/files/…');
    expect(redactUrl('https://h/upload?token=secret')).toBe('https://h/upload/…');
    const text = redactText(`fetch failed for ${signed}: ECONNRESET`);
    expect(text).not.toContain('c2lnbmF0dXJlc2VjcmV0');
    expect(text).toContain('ECONNRESET');
  });
});

test('an error’s causes are told (Node’s fetch failed says why only there), their URLs cut', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  const failed = new Error('fetch failed', { cause: refused });
  expect(describeError(new Error('network', { cause: failed }))).toBe('network: fetch failed: connect ECONNREFUSED 127.0.0.1:9');
  expect(describeError(new Error('GET http://h/api/files/p/archive/1/sig/x failed'))).toBe('GET http://h/api/files/… failed');
});
