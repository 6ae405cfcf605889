import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/client.ts';
import { cloudMachines, cloudSessions } from '../../db/schema/index.ts';
import { heldStatuses, milliseconds, notifyMachine } from './session-rows.ts';

/**
 * Assignment, exactly once: a waiting session becomes 'assigned' to one machine by a conditional
 * UPDATE (`status = 'waiting'`), so whichever process gets there first wins and every other attempt
 * changes nothing. Capacity holds because every assignment to a machine happens while its row is
 * locked and counts the machine's sessions after taking the lock:
 * - claimForMachine: a provide call (which holds its machine's row) takes the oldest waiting sessions,
 *   skipping rows another transaction holds (FOR UPDATE SKIP LOCKED);
 * - assignWaitingSession: a create or init call picks a live machine with room, skipping machines
 *   another transaction holds, and wakes its held provide call (NOTIFY).
 */

const heldList = sql.join(
  heldStatuses.map((status) => sql`${status}`),
  sql`, `,
);

/** Sessions the machine holds now (read after its row is locked, this is exact). */
async function heldCount(tx: Executor, machineId: string): Promise<number> {
  const [row] = await tx
    .select({ count: sql<number>`count(*)::int` })
    .from(cloudSessions)
    .where(and(eq(cloudSessions.machineId, machineId), inArray(cloudSessions.status, [...heldStatuses])));
  return Number(row?.count ?? 0);
}

/**
 * Inside the provide call's transaction, which has locked the machine's row (its heartbeat UPDATE):
 * assigns it the oldest waiting sessions its free capacity allows. Returns their ids and the room left.
 */
export async function claimForMachine(tx: Executor, machine: { id: string; capacity: number }): Promise<{ claimed: string[]; freeAfter: number }> {
  const free = machine.capacity - (await heldCount(tx, machine.id));
  if (free <= 0) return { claimed: [], freeAfter: 0 };
  const claimed = await tx
    .update(cloudSessions)
    .set({ status: 'assigned', machineId: machine.id, assignedAt: sql`now()` })
    .where(
      and(
        eq(cloudSessions.status, 'waiting'),
        // array(...) is evaluated once (an InitPlan): as an IN subquery the planner may rescan it per
        // row, and a rescan with SKIP LOCKED and LIMIT can pick further rows (over capacity).
        sql`${cloudSessions.id} = any(array(select w.id from cloud_sessions w where w.status = 'waiting'
          order by w.created_at, w.id limit ${free} for update skip locked))`,
      ),
    )
    .returning({ id: cloudSessions.id });
  return { claimed: claimed.map((row) => row.id), freeAfter: free - claimed.length };
}

/**
 * For a create or init call: assigns the waiting session to the least busy live machine with room,
 * if there is one. Returns the machine's id when this call assigned it (its provide call is woken).
 */
export async function assignWaitingSession(db: Executor, config: Config, sessionId: string): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    // Correlated on the outer row by its full name: drizzle leaves columns of a one-table select unqualified.
    const held = sql`(select count(*) from cloud_sessions s where s.machine_id = "cloud_machines"."id" and s.status in (${heldList}))`;
    const [machine] = await tx
      .select({ id: cloudMachines.id, capacity: cloudMachines.capacity })
      .from(cloudMachines)
      .where(
        and(
          eq(cloudMachines.revoked, false),
          sql`${cloudMachines.lastSeenAt} > now() - ${milliseconds(config.cloudPlay.machineTimeoutMs)}`,
          sql`${cloudMachines.capacity} > ${held}`,
        ),
      )
      .orderBy(held, desc(cloudMachines.lastSeenAt), asc(cloudMachines.id))
      .limit(1)
      .for('update', { skipLocked: true });
    if (!machine) return undefined;
    // The count above was read before the lock: count again under it.
    if (machine.capacity - (await heldCount(tx, machine.id)) <= 0) return undefined;
    const assigned = await tx
      .update(cloudSessions)
      .set({ status: 'assigned', machineId: machine.id, assignedAt: sql`now()` })
      .where(and(eq(cloudSessions.id, sessionId), eq(cloudSessions.status, 'waiting')))
      .returning({ id: cloudSessions.id });
    if (assigned.length === 0) return undefined;
    await notifyMachine(tx, machine.id);
    return machine.id;
  });
}
