import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { packageTitle } from '../../../shared/packages/package-name.ts';
import {
  machineProvideInput,
  type MachineProvideReply,
  type MachineSessionReport,
  type MachineWork,
} from '../../../shared/schemas/cloud-play.ts';
import type { Executor } from '../../db/client.ts';
import { cloudMachines, cloudSessions, packages } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { claimForMachine } from './assignment.ts';
import { authenticateMachine, wrongMachineAuth } from './machines.service.ts';
import { endedStatuses, heldStatuses, milliseconds, notifySessions, subscribeMachineWakeUps } from './session-rows.ts';
import { sweepCloudSessions } from './sweep.ts';
import { sleepUntilWoken } from './wake-wait.ts';

/**
 * POST /cloud-play/machine/provide: the host agent's heartbeat and long poll (machine token as bearer).
 *
 * 1. The machine's row is updated (last seen now, capacity, agent version): it is live until it has been
 *    silent for CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS.
 * 2. Its reports are applied, only for sessions assigned to this machine (other ids are ignored):
 *    'offered' with the offer moves an assigned session to offered; 'playing' moves an answered one to
 *    playing; 'ended'/'errored' end it with the agent's reason; every report is the session's heartbeat.
 * 3. The deadlines of every session are checked (sweep.ts), waiting sessions are claimed up to the
 *    machine's free capacity, and the reply lists the work: stops (sessions that ended on the server
 *    side and the agent still holds), starts (sessions assigned to it that it has not reported yet),
 *    answers (the player's answer to an offer it made); a session the agent reports that exists
 *    nowhere (deleted with its project or package) gets a stop, reason 'not_found'. Each item is handed
 *    again after a heartbeat if the agent's reports show it did not act on it (the reply may have been
 *    lost): an agent treats a repeated start or stop of a session as done already.
 * 4. With nothing to do and `wait`, the call is held up to heartbeatMs and answers as soon as work for
 *    this machine appears (NOTIFY 'cloud_play' from any process: a session to claim, an answer, a stop).
 */
export async function provideMachine(deps: Deps, token: string | undefined, rawInput: unknown, signal?: AbortSignal): Promise<MachineProvideReply> {
  const input = machineProvideInput.parse(rawInput);
  const machine = await authenticateMachine(deps.db, token);
  const heartbeatMs = deps.config.cloudPlay.heartbeatMs;
  const deadline = performance.now() + heartbeatMs;

  let woken = false;
  let wake: (() => void) | undefined;
  /** Free slots after the last turn: a full machine sleeps through wake-ups meant for any machine. */
  let hasRoom = true;
  const unsubscribe = input.wait
    ? await subscribeMachineWakeUps(deps.database, machine.id, (forMachine) => {
        if (!forMachine && !hasRoom) return;
        woken = true;
        wake?.();
      })
    : undefined;
  try {
    let reports: MachineSessionReport[] | undefined = input.sessions;
    for (;;) {
      woken = false;
      // Another process's sweep may end this machine's sessions meanwhile; each turn sweeps again.
      await sweepCloudSessions(deps.db, deps.config);
      const turn = await deps.db.transaction((tx) => provideTurn(tx, deps, machine.id, { capacity: input.capacity, agentVersion: input.agentVersion, reports }));
      reports = undefined;
      hasRoom = turn.hasRoom;
      const remaining = deadline - performance.now();
      if (turn.work.length > 0 || !input.wait || remaining <= 0 || signal?.aborted) return { work: turn.work, heartbeatMs };
      if (!woken) await sleepUntilWoken(remaining, signal, (resolve) => (wake = resolve));
      wake = undefined;
      if (signal?.aborted || (!woken && performance.now() >= deadline)) return { work: [], heartbeatMs };
    }
  } finally {
    unsubscribe?.();
  }
}

/** One look at the machine's state, in one transaction that holds the machine's row throughout. */
async function provideTurn(
  tx: Executor,
  deps: Deps,
  machineId: string,
  call: { capacity: number; agentVersion: string; reports: MachineSessionReport[] | undefined },
): Promise<{ work: MachineWork[]; hasRoom: boolean }> {
  // The heartbeat, and the machine's row lock (assignments to it take the same lock: capacity holds).
  const [machine] = await tx
    .update(cloudMachines)
    .set({ lastSeenAt: sql`now()`, capacity: call.capacity, agentVersion: call.agentVersion })
    .where(and(eq(cloudMachines.id, machineId), eq(cloudMachines.revoked, false)))
    .returning({ id: cloudMachines.id, capacity: cloudMachines.capacity });
  // Revoked while the call was held.
  if (!machine) throw wrongMachineAuth();
  const gone = call.reports && call.reports.length > 0 ? await applyReports(tx, machineId, call.reports) : [];
  const claim = await claimForMachine(tx, machine);
  const work = await workFor(tx, deps, machineId);
  // Sessions the agent holds that no longer exist (their project or package was deleted): stop them.
  const stops: MachineWork[] = gone.map((session) => ({ kind: 'stop', session, reason: 'not_found' }));
  return { work: [...stops, ...work], hasRoom: claim.freeAfter > 0 };
}

/** Agent-chosen reasons are shown to players: one line, bounded. */
function cleanReason(reason: string | undefined, fallback: string): string {
  const cleaned = (reason ?? '').replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim().slice(0, 200);
  return cleaned || fallback;
}

/** An offer is JSON text {type:'offer', sdp}: what the page gives setRemoteDescription. */
function isOfferText(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'offer' && typeof (value as { sdp?: unknown }).sdp === 'string';
  } catch {
    return false;
  }
}

/**
 * Applies the reports to this machine's sessions; returns the ids the agent reports live that exist
 * nowhere (deleted with their project or package), which it is told to stop.
 */
async function applyReports(tx: Executor, machineId: string, reports: MachineSessionReport[]): Promise<string[]> {
  // The last report of a session wins; only this machine's sessions are looked at, in id order (locks).
  const byId = new Map(reports.map((report) => [report.session, report]));
  const existing = await tx.select({ id: cloudSessions.id }).from(cloudSessions).where(inArray(cloudSessions.id, [...byId.keys()]));
  const known = new Set(existing.map((row) => row.id));
  const gone = [...byId.values()].filter((report) => !known.has(report.session) && report.state !== 'ended' && report.state !== 'errored').map((report) => report.session);
  const rows = await tx
    .select({ id: cloudSessions.id, status: cloudSessions.status, offer: cloudSessions.offer })
    .from(cloudSessions)
    .where(and(eq(cloudSessions.machineId, machineId), inArray(cloudSessions.id, [...byId.keys()])))
    .orderBy(asc(cloudSessions.id))
    .for('update');
  /** Sessions whose status the reports change (an offer in, an end): their players' held inits wake. */
  const moved: string[] = [];
  for (const row of rows) {
    const report = byId.get(row.id)!;
    const change: PgUpdateSetSource<typeof cloudSessions> = { heartbeatAt: sql`now()`, reportedState: report.state };
    const live = (heldStatuses as readonly string[]).includes(row.status);
    if (live) {
      switch (report.state) {
        case 'offered':
          // The same offer reported again changes nothing (the connect deadline runs from the first);
          // a new one before any answer replaces it (the agent made a new peer connection).
          if (report.offer !== undefined && (row.status === 'assigned' || (row.status === 'offered' && report.offer !== row.offer))) {
            if (isOfferText(report.offer)) Object.assign(change, { offer: report.offer, status: 'offered', offeredAt: sql`now()` });
            else Object.assign(change, { status: 'errored', reason: 'bad_offer', endedAt: sql`now()`, offer: null, answer: null });
          }
          break;
        case 'playing':
          if (row.status === 'answered' || row.status === 'playing') Object.assign(change, { status: 'playing', playingAt: sql`coalesce(${cloudSessions.playingAt}, now())` });
          break;
        case 'ended':
        case 'errored':
          Object.assign(change, {
            status: report.state,
            reason: cleanReason(report.reason, report.state === 'ended' ? 'ended' : 'agent_error'),
            endedAt: sql`now()`,
            offer: null,
            answer: null,
          });
          break;
        default:
          break;
      }
    }
    await tx.update(cloudSessions).set(change).where(eq(cloudSessions.id, row.id));
    if ('status' in change) moved.push(row.id);
  }
  await notifySessions(tx, moved);
  return gone;
}

/** Stops, then starts, then answers for the machine; marks each as handed over now. */
async function workFor(tx: Executor, deps: Deps, machineId: string): Promise<MachineWork[]> {
  const again = sql`now() - ${milliseconds(deps.config.cloudPlay.heartbeatMs)}`;
  const mine = eq(cloudSessions.machineId, machineId);

  // Ended here while the agent holds it: it knew of it (start handed over) and has not said it ended.
  const stops = await tx
    .update(cloudSessions)
    .set({ stopSentAt: sql`now()` })
    .where(
      and(
        mine,
        inArray(cloudSessions.status, [...endedStatuses]),
        sql`${cloudSessions.startSentAt} is not null`,
        sql`(${cloudSessions.reportedState} is null or ${cloudSessions.reportedState} not in ('ended', 'errored'))`,
        sql`(${cloudSessions.stopSentAt} is null or (${cloudSessions.stopSentAt} < ${again} and ${cloudSessions.heartbeatAt} > ${cloudSessions.stopSentAt}))`,
      ),
    )
    .returning({ id: cloudSessions.id, reason: cloudSessions.reason });

  const starts = await tx
    .update(cloudSessions)
    .set({ startSentAt: sql`now()` })
    .where(
      and(
        mine,
        eq(cloudSessions.status, 'assigned'),
        isNull(cloudSessions.heartbeatAt),
        sql`(${cloudSessions.startSentAt} is null or ${cloudSessions.startSentAt} < ${again})`,
      ),
    )
    .returning({ id: cloudSessions.id, projectId: cloudSessions.projectId, branchId: cloudSessions.branchId, versionId: cloudSessions.versionId, packageId: cloudSessions.packageId });

  const answers = await tx
    .update(cloudSessions)
    .set({ answerSentAt: sql`now()` })
    .where(
      and(
        mine,
        eq(cloudSessions.status, 'answered'),
        sql`${cloudSessions.answer} is not null`,
        sql`(${cloudSessions.reportedState} is null or ${cloudSessions.reportedState} in ('preparing', 'offered'))`,
        sql`(${cloudSessions.answerSentAt} is null or ${cloudSessions.answerSentAt} < ${again})`,
      ),
    )
    .returning({ id: cloudSessions.id, sdp: cloudSessions.answer });

  const packageRows =
    starts.length === 0
      ? []
      : await tx
          .select({ id: packages.id, title: packages.title, tags: packages.tags, entrypoint: packages.entrypoint, totalSize: packages.totalSize, indexHash: packages.indexHash })
          .from(packages)
          .where(inArray(packages.id, [...new Set(starts.map((start) => start.packageId))]));
  const packageById = new Map(packageRows.map((row) => [row.id, row]));
  const { iceServers, settings } = deps.config.cloudPlay;

  return [
    ...stops.map((stop): MachineWork => ({ kind: 'stop', session: stop.id, reason: stop.reason ?? 'stopped' })),
    ...starts.flatMap((start): MachineWork[] => {
      const pkg = packageById.get(start.packageId);
      if (!pkg) return [];
      return [
        {
          kind: 'start',
          session: start.id,
          package: {
            project: start.projectId,
            branch: start.branchId ?? '-',
            version: start.versionId ?? '-',
            package: pkg.id,
            title: packageTitle(pkg),
            entrypoint: pkg.entrypoint ?? [],
            size: pkg.totalSize,
            indexHash: pkg.indexHash,
          },
          settings,
          iceServers,
        },
      ];
    }),
    ...answers.map((answer): MachineWork => ({ kind: 'answer', session: answer.id, sdp: answer.sdp! })),
  ];
}
