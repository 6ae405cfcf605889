import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { cloudMachineIdInput, createCloudMachineInput, type CloudMachine } from '../../../shared/schemas/cloud-play.ts';
import type { Executor } from '../../db/client.ts';
import { generateToken, hashToken } from '../../crypto/index.ts';
import { newId } from '../../db/ids.ts';
import { cloudMachines, cloudSessions } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { notFound, refusal } from '../../errors.ts';
import { requireAdmin, type Actor } from '../auth/actor.ts';
import { endSessions, heldStatuses, notifyMachine } from './session-rows.ts';

/**
 * Host machines: an operator adds one (`cartridge admin machine add TITLE`, or admin.cloudMachines.create)
 * and gives its token, shown once, to the host agent, which sends it as `Authorization: Bearer …` on
 * provide and internal access. Revoking one refuses its next call and ends its sessions.
 */

type MachineRow = typeof cloudMachines.$inferSelect;

export const wrongMachineAuth = () => refusal('wrong_auth', 'A cloud-play machine token is required: unknown, revoked or missing', 'machine_token');

/** The machine of a bearer token, not revoked; wrong_auth otherwise (no token, a user's token, a revoked one). */
export async function authenticateMachine(db: Executor, token: string | undefined): Promise<MachineRow> {
  if (!token || !token.startsWith('cm_') || token.length > 200) throw wrongMachineAuth();
  const [row] = await db
    .select()
    .from(cloudMachines)
    .where(and(eq(cloudMachines.tokenHash, hashToken(token)), eq(cloudMachines.revoked, false)));
  if (!row) throw wrongMachineAuth();
  return row;
}

function describeMachine(row: MachineRow, liveSessions: number): CloudMachine {
  return {
    id: row.id,
    title: row.title,
    created: row.createdAt.toISOString(),
    lastSeen: row.lastSeenAt?.toISOString() ?? null,
    capacity: row.capacity,
    liveSessions,
    agentVersion: row.agentVersion,
    revoked: row.revoked,
  };
}

async function liveSessionCounts(db: Executor, machineIds: string[]): Promise<Map<string, number>> {
  if (machineIds.length === 0) return new Map();
  const rows = await db
    .select({ machineId: cloudSessions.machineId, count: sql<number>`count(*)::int` })
    .from(cloudSessions)
    .where(and(inArray(cloudSessions.machineId, machineIds), inArray(cloudSessions.status, [...heldStatuses])))
    .groupBy(cloudSessions.machineId);
  return new Map(rows.map((row) => [row.machineId!, Number(row.count)]));
}

/* ---- Without an actor: the server command (commands/admin.ts) talks to the database directly ---- */

export async function listMachineRecords(db: Executor): Promise<CloudMachine[]> {
  const rows = await db.select().from(cloudMachines).orderBy(asc(cloudMachines.createdAt), asc(cloudMachines.id));
  const counts = await liveSessionCounts(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => describeMachine(row, counts.get(row.id) ?? 0));
}

/** A new machine and its token (only its SHA-256 is stored: this is the one time it is seen). */
export async function addMachineRecord(db: Executor, rawInput: unknown): Promise<{ machine: CloudMachine; token: string }> {
  const input = createCloudMachineInput.parse(rawInput);
  const token = generateToken('cm');
  const [row] = await db
    .insert(cloudMachines)
    .values({ id: newId(), title: input.title, tokenHash: hashToken(token) })
    .returning();
  return { machine: describeMachine(row!, 0), token };
}

/**
 * Revokes a machine: its token stops working at once (a provide call it has in progress answers
 * wrong_auth) and its live sessions end as errored, reason 'machine_revoked'. Revoking twice is fine.
 */
export async function revokeMachineRecord(db: Executor, rawInput: unknown): Promise<{ machine: CloudMachine; sessionsEnded: number }> {
  const input = cloudMachineIdInput.parse(rawInput);
  return db.transaction(async (tx) => {
    // The machine's row first, as its provide calls take it: no lock order to deadlock on.
    const [row] = await tx.update(cloudMachines).set({ revoked: true }).where(eq(cloudMachines.id, input.machine)).returning();
    if (!row) throw notFound('machine');
    const ended = await endSessions(tx, eq(cloudSessions.machineId, row.id), { status: 'errored', reason: 'machine_revoked' });
    await notifyMachine(tx, row.id);
    return { machine: describeMachine(row, 0), sessionsEnded: ended.length };
  });
}

/* ---- Instance administrators (tRPC admin.cloudMachines.*) ---- */

export async function listCloudMachines(deps: Deps, actor: Actor): Promise<CloudMachine[]> {
  requireAdmin(actor);
  return listMachineRecords(deps.db);
}

export async function createCloudMachine(deps: Deps, actor: Actor, input: unknown): Promise<{ machine: CloudMachine; token: string }> {
  requireAdmin(actor);
  return addMachineRecord(deps.db, input);
}

export async function revokeCloudMachine(deps: Deps, actor: Actor, input: unknown): Promise<CloudMachine> {
  requireAdmin(actor);
  return (await revokeMachineRecord(deps.db, input)).machine;
}
