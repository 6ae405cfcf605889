import { and, inArray, sql, type SQL } from 'drizzle-orm';
import type { CloudSessionStatus } from '../../../shared/schemas/cloud-play.ts';
import type { DatabaseHandle, Executor } from '../../db/client.ts';
import { subscribeChannel } from '../../db/notify.ts';
import { cloudSessions } from '../../db/schema/index.ts';

/**
 * What the cloud-play services share: the statuses, the wake-up channel, and ending sessions.
 *
 * Wake-ups (DESIGN.md "Data and scale-out"): whoever gives a machine something to do (assigns it a
 * session, stores a player's answer, ends one of its sessions, revokes it) sends NOTIFY 'cloud_play'
 * with the machine's id inside the same transaction, delivered at commit; a new waiting session sends
 * '*' (any machine with room may claim it). A provide call held by any process LISTENs and re-reads
 * when its machine is named. PGlite delivers the same notifications in process.
 *
 * The player's side has a channel of its own, 'cloud_play_session' with the session's id: sent when a
 * session's offer is stored (the agent's report) and when it ends, it wakes the player's held init.
 */
export const cloudPlayChannel = 'cloud_play';
export const anyMachine = '*';
export const cloudSessionChannel = 'cloud_play_session';

/** A session that still holds, or waits for, a machine. */
export const liveStatuses = ['waiting', 'assigned', 'offered', 'answered', 'playing'] as const satisfies readonly CloudSessionStatus[];
/** A session a machine holds (counts against its capacity). */
export const heldStatuses = ['assigned', 'offered', 'answered', 'playing'] as const satisfies readonly CloudSessionStatus[];
export const endedStatuses = ['ended', 'errored'] as const satisfies readonly CloudSessionStatus[];

export const isLive = (status: CloudSessionStatus) => (liveStatuses as readonly string[]).includes(status);

/** Milliseconds as a SQL interval from a parameter (typed explicitly: postgres.js and PGlite agree). */
export const milliseconds = (ms: number) => sql`(${String(Math.max(0, Math.round(ms)))})::bigint * interval '1 millisecond'`;

/** Sends the wake-up for a machine ('*': any machine) at the commit of the caller's transaction. */
export async function notifyMachine(db: Executor, machineId: string): Promise<void> {
  await db.execute(sql`select pg_notify(${cloudPlayChannel}, ${machineId})`);
}

/**
 * Calls onWake for every notification naming the machine (forMachine true) or any machine (false: a
 * new waiting session, of interest only to a machine with room); resolves once listening.
 */
export function subscribeMachineWakeUps(database: DatabaseHandle, machineId: string, onWake: (forMachine: boolean) => void): Promise<() => void> {
  return subscribeChannel(database, cloudPlayChannel, {
    onMessage: (payload) => {
      if (payload === machineId || payload === anyMachine) onWake(payload === machineId);
    },
    // Notifications may have been missed while the listener reconnected: look again.
    onResubscribe: () => onWake(true),
  });
}

/** Sends the wake-up of each session (its offer is in, or it ended) at the commit of the caller's transaction. */
export async function notifySessions(db: Executor, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return;
  const ids = sql.join(
    sessionIds.map((id) => sql`(${id})`),
    sql`, `,
  );
  await db.execute(sql`select pg_notify(${cloudSessionChannel}, ids.id) from (values ${ids}) as ids(id)`);
}

/** Calls onWake for every notification naming the session; resolves once listening. */
export function subscribeSessionWakeUps(database: DatabaseHandle, sessionId: string, onWake: () => void): Promise<() => void> {
  return subscribeChannel(database, cloudSessionChannel, {
    onMessage: (payload) => {
      if (payload === sessionId) onWake();
    },
    onResubscribe: onWake,
  });
}

/** The end reasons the server itself gives (the agent may give its own words too). */
export type EndReason = 'stopped' | 'replaced' | 'time_limit' | 'machine_lost' | 'machine_revoked' | 'not_connected' | 'no_machine' | 'bad_offer';

/**
 * Ends the live sessions matching `where` (status ended or errored, the reason, ended_at; the offer
 * and answer are dropped) and wakes the machines that held them, so their agents hear the stop, and
 * the players' held inits, which answer not_found at once.
 * skipLocked: rows another transaction holds are left for the next sweep (sweeps never wait, so they
 * cannot deadlock with a provide call). Returns the ended sessions.
 */
export async function endSessions(
  db: Executor,
  where: SQL | undefined,
  outcome: { status: 'ended' | 'errored'; reason: EndReason },
  options: { skipLocked?: boolean } = {},
): Promise<{ id: string; machineId: string | null }[]> {
  const live = and(inArray(cloudSessions.status, [...liveStatuses]), where);
  const target = options.skipLocked
    ? sql`${cloudSessions.id} = any(array(select ${cloudSessions.id} from ${cloudSessions} where ${live} for update skip locked))`
    : live;
  const ended = await db
    .update(cloudSessions)
    .set({ status: outcome.status, reason: outcome.reason, endedAt: sql`now()`, offer: null, answer: null })
    // Checked again on the locked row: a session that ended meanwhile keeps its own reason.
    .where(and(target, inArray(cloudSessions.status, [...liveStatuses])))
    .returning({ id: cloudSessions.id, machineId: cloudSessions.machineId });
  for (const machineId of new Set(ended.flatMap((row) => (row.machineId ? [row.machineId] : [])))) await notifyMachine(db, machineId);
  await notifySessions(
    db,
    ended.map((row) => row.id),
  );
  return ended;
}
