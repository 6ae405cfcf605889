import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  cloudConnectInput,
  cloudSessionTokenInput,
  type CloudSessionState,
  type CloudSessionStatus,
  type CreatedCloudSession,
  noMachineOnlineReason,
} from '../../../shared/schemas/cloud-play.ts';
import { generateToken, hashToken } from '../../crypto/index.ts';
import { newId } from '../../db/ids.ts';
import { cloudSessions, users } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError, refusal } from '../../errors.ts';
import { requireUser, type Actor } from '../auth/actor.ts';
import { getReadyPackage } from '../packages/records/package-content.ts';
import { assignWaitingSession } from './assignment.ts';
import { anyMachineOnline } from './availability.service.ts';
import { anyMachine, endSessions, isLive, liveStatuses, notifyMachine, subscribeSessionWakeUps } from './session-rows.ts';
import { sweepCloudSessions } from './sweep.ts';
import { sleepUntilWoken } from './wake-wait.ts';

/**
 * The player's side of cloud play (spec §4, §7): create a session on a package, then with its token
 * init (the agent's offer; held a few seconds for it, then `timeout`: the page asks again after a second), connect
 * (the page's answer), state, stop. The token is the only access these calls need.
 */

/** Spec §6: cloud play needs these tags (the host agents run Linux x86 games). */
const cloudPlayTags = ['os:linux', 'arch:x86'] as const;

type SessionRow = typeof cloudSessions.$inferSelect;

/**
 * POST /projects/{p}/packages/{id}/cloud-play. Refusals, in this order: a visitor is unauthorized; a
 * user without privilege cloud_play insufficient_privileges (details.reason 'missing_privilege'); a
 * package the caller may not see not_found (the downloads' visibility rule: members, or a version of
 * it published to a public branch of a public project); one not ready not_finalized; one without both
 * tags not_supported (details.reason 'missing_tags', details.tags the missing ones); with no machine
 * online (availability.service.ts) not_supported (details.reason 'no_machine_online') at once, rather
 * than a session that waits CLOUD_PLAY_CONNECT_SECONDS for nothing. The caller's live session, if
 * any, ends ('replaced'): one live session per user.
 */
export async function createCloudSession(deps: Deps, actor: Actor, projectId: string, packageId: string): Promise<CreatedCloudSession> {
  const user = requireUser(actor);
  if (!user.privileges.has('cloud_play')) {
    throw refusal('insufficient_privileges', 'Playing in the cloud needs the cloud_play privilege: an administrator of this instance can grant it', 'missing_privilege', {
      privilege: 'cloud_play',
    });
  }
  const pkg = await getReadyPackage(deps, actor, projectId, packageId);
  const missing = cloudPlayTags.filter((tag) => !pkg.tags.includes(tag));
  if (missing.length > 0) {
    throw refusal('not_supported', `Only packages tagged ${cloudPlayTags.join(' and ')} can be played in the cloud`, 'missing_tags', { tags: missing });
  }
  if (!(await anyMachineOnline(deps.db, deps.config))) {
    throw refusal('not_supported', 'No cloud-play machine is online right now: try again later', noMachineOnlineReason);
  }
  const token = generateToken('cp');
  const id = newId();
  await deps.db.transaction(async (tx) => {
    // One create per user at a time: the previous session ends before the new one counts as live.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, user.userId)).for('update');
    await endSessions(tx, eq(cloudSessions.userId, user.userId), { status: 'ended', reason: 'replaced' });
    await tx.insert(cloudSessions).values({ id, userId: user.userId, projectId: pkg.projectId, packageId: pkg.id, tokenHash: hashToken(token) });
    await notifyMachine(tx, anyMachine);
  });
  await tryToAssign(deps, id);
  return { session: id, token, iceServers: deps.config.cloudPlay.iceServers, settings: deps.config.cloudPlay.settings };
}

/** Best effort: a machine's next provide call claims the session anyway. */
async function tryToAssign(deps: Deps, sessionId: string): Promise<void> {
  try {
    await assignWaitingSession(deps.db, deps.config, sessionId);
  } catch (error) {
    deps.log.error('cloud session assignment failed', { session: sessionId, error: String(error) });
  }
}

const sessionNotFound = () => new AppError('not_found', 'cloud session not found');

/** The session of a player token, with its own deadlines checked first. */
async function findSession(deps: Deps, token: string): Promise<SessionRow> {
  const where = eq(cloudSessions.tokenHash, hashToken(token));
  const [row] = await deps.db.select().from(cloudSessions).where(where);
  if (!row) throw sessionNotFound();
  if (!isLive(row.status)) return row;
  if ((await sweepCloudSessions(deps.db, deps.config, { sessionId: row.id })) === 0) return row;
  const [swept] = await deps.db.select().from(cloudSessions).where(where);
  if (!swept) throw sessionNotFound();
  return swept;
}

/** An ended session answers init and connect with not_found, saying how it ended. */
function sessionEnded(row: SessionRow): AppError {
  return new AppError('not_found', `This cloud session has ended (${row.reason ?? row.status})`, { status: row.status, reason: row.reason });
}

const notReady = (status: CloudSessionStatus) =>
  new AppError('timeout', status === 'waiting' ? 'Waiting for a free machine: ask again in a second' : 'The machine is preparing the game: ask again in a second', { status });

/** One look at the session for init: its offer if there is one; a waiting session is offered to a free machine. */
async function initTurn(deps: Deps, token: string): Promise<{ id: string; status: CloudSessionStatus; offer: string | null }> {
  let row = await findSession(deps, token);
  if (row.status === 'waiting' && (await assignWaitingSession(deps.db, deps.config, row.id))) {
    row = { ...row, status: 'assigned' };
  }
  if (!isLive(row.status)) throw sessionEnded(row);
  return { id: row.id, status: row.status, offer: row.offer };
}

/**
 * POST /cloud-play/session/init {token}: the agent's offer as JSON text ({type:'offer', sdp}) once the
 * machine has made it. Until then the call is held up to CLOUD_PLAY_INIT_HOLD_SECONDS and answers the
 * moment the offer is stored (the agent's report, through any process: NOTIFY 'cloud_play_session'),
 * then the catalogued timeout (503): the page asks again after 1 s, so a player waiting for a machine
 * costs one call every hold instead of one a second. While held it holds no database connection; it
 * ends at once when the client goes away or the server stops (signal). A session that ends meanwhile,
 * or had ended, is not_found (details: status, reason), at once.
 */
export async function initCloudSession(deps: Deps, rawInput: unknown, signal?: AbortSignal): Promise<string> {
  const input = cloudSessionTokenInput.parse(rawInput);
  const first = await initTurn(deps, input.token);
  if (first.offer !== null) return first.offer;
  const holdMs = deps.config.cloudPlay.initHoldMs;
  if (holdMs <= 0 || signal?.aborted) throw notReady(first.status);
  const deadline = performance.now() + holdMs;
  let woken = false;
  let wake: (() => void) | undefined;
  const unsubscribe = await subscribeSessionWakeUps(deps.database, first.id, () => {
    woken = true;
    wake?.();
  });
  try {
    for (;;) {
      woken = false;
      // Read once listening: an offer stored meanwhile is seen here or wakes the wait below.
      const turn = await initTurn(deps, input.token);
      if (turn.offer !== null) return turn.offer;
      const remaining = deadline - performance.now();
      if (remaining <= 0 || signal?.aborted) throw notReady(turn.status);
      if (!woken) await sleepUntilWoken(remaining, signal, (resolve) => (wake = resolve));
      wake = undefined;
      if (signal?.aborted) throw notReady(turn.status);
    }
  } finally {
    unsubscribe();
  }
}

/**
 * POST /cloud-play/session/connect {token, sdp}: stores the page's answer and wakes the machine, once.
 * Before the offer: timeout (ask again); after an answer: name_conflict (details.reason
 * 'already_connected'); an ended session: not_found.
 */
export async function connectCloudSession(deps: Deps, rawInput: unknown): Promise<{ ok: true }> {
  const input = cloudConnectInput.parse(rawInput);
  const row = await findSession(deps, input.token);
  const connected = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(cloudSessions)
      .set({ answer: input.sdp, status: 'answered', answeredAt: sql`now()` })
      .where(and(eq(cloudSessions.id, row.id), eq(cloudSessions.status, 'offered')))
      .returning({ machineId: cloudSessions.machineId });
    if (updated?.machineId) await notifyMachine(tx, updated.machineId);
    return updated !== undefined;
  });
  if (connected) return { ok: true };
  const [now] = await deps.db.select().from(cloudSessions).where(eq(cloudSessions.id, row.id));
  if (!now) throw sessionNotFound();
  if (!isLive(now.status)) throw sessionEnded(now);
  if (now.status === 'waiting' || now.status === 'assigned') throw notReady(now.status);
  throw refusal('name_conflict', 'This cloud session is already connected', 'already_connected');
}

/** GET /cloud-play/session?token: where the session stands and, once ended, why. */
export async function getCloudSessionState(deps: Deps, rawInput: unknown): Promise<CloudSessionState> {
  const input = cloudSessionTokenInput.parse(rawInput);
  const row = await findSession(deps, input.token);
  return { status: row.status, reason: row.reason };
}

/** POST /cloud-play/session/stop {token}: ends the session ('stopped') and tells its machine; stopping an ended one is fine. */
export async function stopCloudSession(deps: Deps, rawInput: unknown): Promise<{ ok: true }> {
  const input = cloudSessionTokenInput.parse(rawInput);
  const [row] = await deps.db.select({ id: cloudSessions.id }).from(cloudSessions).where(eq(cloudSessions.tokenHash, hashToken(input.token)));
  if (!row) throw sessionNotFound();
  await deps.db.transaction((tx) => endSessions(tx, and(eq(cloudSessions.id, row.id), inArray(cloudSessions.status, [...liveStatuses])), { status: 'ended', reason: 'stopped' }));
  return { ok: true };
}
