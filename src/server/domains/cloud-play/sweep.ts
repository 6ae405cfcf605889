import { and, eq, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/client.ts';
import { cloudSessions } from '../../db/schema/index.ts';
import { servingSinceSql } from './serving-clock.ts';
import { endSessions, heldStatuses, milliseconds } from './session-rows.ts';

/**
 * The cloud-play deadlines, all by the database clock (processes with skewed clocks agree):
 * - a machine silent past CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS (or revoked) is lost: the sessions it held
 *   end as errored, 'machine_lost'; so does a session its live machine has stopped reporting for as
 *   long (an agent that restarted and forgot it);
 * - a session no machine took within CLOUD_PLAY_CONNECT_SECONDS: errored, 'no_machine';
 * - an offer nobody answered, or an answer that did not lead to playing, within
 *   CLOUD_PLAY_CONNECT_SECONDS: errored, 'not_connected';
 * - a session older than CLOUD_PLAY_MAX_SECONDS: ended, 'time_limit'.
 * Waits on a machine or a player (all but the time limit) count from greatest(the moment, the serving
 * clock's serving since: serving-clock.ts): while no server process served, nobody could call, and a
 * session played on (the stream does not pass through the server), so that time is not held against it.
 * Run by every provide call and the periodic job for all sessions, and by the player's init and state
 * calls for their own session, so a deadline shows on the next call whoever makes it. Rows another
 * transaction holds are skipped (a later sweep ends them): a sweep never waits on a lock.
 */
export async function sweepCloudSessions(db: Executor, config: Config, options: { sessionId?: string } = {}): Promise<number> {
  const { connectMs, machineTimeoutMs, settings } = config.cloudPlay;
  const scope = (condition: SQL | undefined) => and(options.sessionId ? eq(cloudSessions.id, options.sessionId) : undefined, condition);
  const ago = (ms: number) => sql`now() - ${milliseconds(ms)}`;
  // An uncorrelated subquery: evaluated once per statement.
  const servingSince = servingSinceSql(config.cloudPlay.servingGapMs);
  const waitedSince = (moment: SQL) => sql`greatest(${moment}, ${servingSince})`;
  let ended = 0;

  const machineLost = and(
    inArray(cloudSessions.status, [...heldStatuses]),
    or(
      sql`${cloudSessions.machineId} is null`,
      sql`not exists (select 1 from cloud_machines m where m.id = ${cloudSessions.machineId} and not m.revoked and ${waitedSince(sql`m.last_seen_at`)} > ${ago(machineTimeoutMs)})`,
      sql`${waitedSince(sql`coalesce(${cloudSessions.heartbeatAt}, ${cloudSessions.startSentAt}, ${cloudSessions.assignedAt})`)} < ${ago(machineTimeoutMs)}`,
    ),
  );
  ended += (await endSessions(db, scope(machineLost), { status: 'errored', reason: 'machine_lost' }, { skipLocked: true })).length;

  const noMachine = and(eq(cloudSessions.status, 'waiting'), sql`${waitedSince(sql`${cloudSessions.createdAt}`)} < ${ago(connectMs)}`);
  ended += (await endSessions(db, scope(noMachine), { status: 'errored', reason: 'no_machine' }, { skipLocked: true })).length;

  const notConnected = or(
    and(eq(cloudSessions.status, 'offered'), sql`${waitedSince(sql`${cloudSessions.offeredAt}`)} < ${ago(connectMs)}`),
    and(eq(cloudSessions.status, 'answered'), sql`${waitedSince(sql`${cloudSessions.answeredAt}`)} < ${ago(connectMs)}`),
  );
  ended += (await endSessions(db, scope(notConnected), { status: 'errored', reason: 'not_connected' }, { skipLocked: true })).length;

  const overTime = lt(cloudSessions.createdAt, ago(settings.maxSeconds * 1000));
  ended += (await endSessions(db, scope(overTime), { status: 'ended', reason: 'time_limit' }, { skipLocked: true })).length;
  return ended;
}

/** Ended sessions are kept a week (what an operator may look at), then forgotten. */
const endedSessionsKeptMs = 7 * 24 * 60 * 60_000;

export async function forgetEndedSessions(db: Executor): Promise<number> {
  const deleted = await db
    .delete(cloudSessions)
    .where(and(inArray(cloudSessions.status, ['ended', 'errored']), lt(cloudSessions.endedAt, sql`now() - ${milliseconds(endedSessionsKeptMs)}`)))
    .returning({ id: cloudSessions.id });
  return deleted.length;
}
