import { eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { instanceFacts } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { milliseconds } from './session-rows.ts';

/**
 * The serving clock: since when the instance has been serving without a gap, by the database clock.
 *
 * The stream of a cloud-play session goes from the machine to the player directly, so a session plays
 * on while every server process is down (a restart, a rolling upgrade). Its machine cannot call
 * meanwhile; counting that time as the machine's silence would end every session the moment the
 * server is back. So every serving process records every servingBeatMs that it is alive
 * (instance_facts.alive_at); the process that finds alive_at older than servingGapMs knows that
 * no process served meanwhile and moves serving_since to now. The sweep (sweep.ts) judges silence from
 * greatest(last call, serving since). With several processes on one database a process starting
 * while others serve finds alive_at fresh and moves nothing; only a gap of the whole instance counts.
 */

/**
 * Records that this process serves; returns whether this record ended a gap (serving_since moved) and
 * whether it is the instance's first record (no process ever served before: a start, not a gap).
 */
export async function recordServing(db: Executor, gapMs: number): Promise<{ resumed: boolean; first: boolean } | undefined> {
  return db.transaction(async (tx) => {
    // The row locked first: of processes recording at once after a gap, one moves serving_since, the
    // others then find alive_at fresh.
    const [row] = await tx
      .select({
        first: sql<boolean>`${instanceFacts.aliveAt} is null`,
        gap: sql<boolean>`${instanceFacts.aliveAt} is null or ${instanceFacts.aliveAt} < now() - ${milliseconds(gapMs)} or ${instanceFacts.servingSince} is null`,
      })
      .from(instanceFacts)
      .where(eq(instanceFacts.id, 1))
      .for('update');
    if (!row) return undefined;
    const resumed = Boolean(row.gap);
    await tx
      .update(instanceFacts)
      .set({ aliveAt: sql`greatest(${instanceFacts.aliveAt}, now())`, ...(resumed ? { servingSince: sql`now()` } : {}) })
      .where(eq(instanceFacts.id, 1));
    return { resumed, first: Boolean(row.first) };
  });
}

/**
 * Since when the instance serves, as a SQL value for the sweep. Read by a serving process: if alive_at
 * is already older than the gap (this process has just started and not recorded yet), the gap is
 * over now. NULL without the instance's row (greatest() ignores it: silence is then counted as it is).
 */
export function servingSinceSql(gapMs: number): SQL {
  return sql`(select case when f.alive_at is null or f.alive_at < now() - ${milliseconds(gapMs)} then now() else coalesce(f.serving_since, now()) end
    from instance_facts f where f.id = 1)`;
}

/** A serving process's records, from its start (the first at once) until stop(). */
export function startServingClock(deps: Pick<Deps, 'db' | 'config' | 'log'>): { stop(): Promise<void> } {
  const { servingBeatMs, servingGapMs } = deps.config.cloudPlay;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const beat = async () => {
    try {
      const recorded = await recordServing(deps.db, servingGapMs);
      if (recorded?.resumed && !recorded.first) deps.log.info('serving after a gap: cloud-play machines and sessions are not held to the time no process served', { gapMs: servingGapMs });
    } catch (error) {
      if (!stopped) deps.log.error('recording that this process serves failed', { error: String(error) });
    }
  };
  const loop = () => {
    running = beat().then(() => {
      if (!stopped) timer = setTimeout(loop, servingBeatMs);
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
