import { and, eq, gt, sql } from 'drizzle-orm';
import type { CloudPlayAvailability } from '../../../shared/schemas/cloud-play.ts';
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/client.ts';
import { cloudMachines } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { milliseconds } from './session-rows.ts';

/**
 * A machine that can take a session now: not revoked, it called within CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS
 * (by the database clock) and said it has room for sessions (capacity above 0). A full machine is
 * online: a new session waits for its free slot.
 */
const machineOnline = (config: Config) =>
  and(eq(cloudMachines.revoked, false), gt(cloudMachines.capacity, 0), sql`${cloudMachines.lastSeenAt} > now() - ${milliseconds(config.cloudPlay.machineTimeoutMs)}`);

export async function anyMachineOnline(db: Executor, config: Config): Promise<boolean> {
  const [row] = await db.select({ id: cloudMachines.id }).from(cloudMachines).where(machineOnline(config)).limit(1);
  return row !== undefined;
}

/**
 * GET /cloud-play/availability, cloudPlay.availability: for every caller, visitors too (the pages offer
 * Play in cloud only while a machine is online, and say so otherwise). Only a yes or no: no count, no
 * name, nothing an operator would keep to themselves.
 */
export async function getCloudPlayAvailability(deps: Pick<Deps, 'db' | 'config'>): Promise<CloudPlayAvailability> {
  return { machineOnline: await anyMachineOnline(deps.db, deps.config) };
}
