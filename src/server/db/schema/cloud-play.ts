import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { cloudSessionStatuses } from '../../../shared/schemas/cloud-play.ts';
import { users } from './accounts.ts';
import { packages } from './packages.ts';
import { branches, projects, versions } from './projects.ts';

const time = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Host machines that run cloud-play sessions (an operator's host agent each). Only the SHA-256 of the
 * machine token is kept (shown once at creation: `admin machine add`, admin.cloudMachines.create). A
 * machine is live while it calls provide within CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS and is not revoked;
 * it takes at most `capacity` live sessions (what it said on its last call).
 */
export const cloudMachines = pgTable(
  'cloud_machines',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    tokenHash: text('token_hash').notNull(),
    revoked: boolean('revoked').notNull().default(false),
    capacity: integer('capacity').notNull().default(0),
    agentVersion: text('agent_version'),
    lastSeenAt: time('last_seen_at'),
    createdAt: time('created_at').notNull().defaultNow(),
  },
  (table) => [uniqueIndex('cloud_machines_token_hash').on(table.tokenHash), check('cloud_machines_capacity', sql`${table.capacity} >= 0`)],
);

/**
 * Cloud-play sessions (spec §4), one row per "Play in cloud":
 *   waiting → assigned (a machine claimed it) → offered (the agent's offer is in) → answered (the
 *   player's answer is in) → playing; any of them → ended (stopped, replaced, game exited, idle,
 *   time limit) or errored (not connected in time, machine lost or revoked, the agent's error).
 * A user has at most one live session (partial unique index). The player's token is kept as its
 * SHA-256. The *_sent_at columns record when the machine was last handed the start, the answer or the
 * stop (handed again after a heartbeat while the agent's reports show it did not act on it);
 * heartbeat_at is the agent's last report of the session, reported_state what it said.
 */
export const cloudSessions = pgTable(
  'cloud_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    packageId: text('package_id')
      .notNull()
      .references(() => packages.id, { onDelete: 'cascade' }),
    branchId: text('branch_id').references(() => branches.id, { onDelete: 'set null' }),
    versionId: text('version_id').references(() => versions.id, { onDelete: 'set null' }),
    status: text('status', { enum: cloudSessionStatuses }).notNull().default('waiting'),
    reason: text('reason'),
    tokenHash: text('token_hash').notNull(),
    machineId: text('machine_id').references(() => cloudMachines.id, { onDelete: 'set null' }),
    /** The agent's offer as JSON text ({type:'offer', sdp}); dropped when the session ends. */
    offer: text('offer'),
    /** The player's answer SDP; dropped when the session ends. */
    answer: text('answer'),
    reportedState: text('reported_state'),
    createdAt: time('created_at').notNull().defaultNow(),
    assignedAt: time('assigned_at'),
    startSentAt: time('start_sent_at'),
    offeredAt: time('offered_at'),
    answeredAt: time('answered_at'),
    answerSentAt: time('answer_sent_at'),
    playingAt: time('playing_at'),
    heartbeatAt: time('heartbeat_at'),
    stopSentAt: time('stop_sent_at'),
    endedAt: time('ended_at'),
  },
  (table) => [
    uniqueIndex('cloud_sessions_token_hash').on(table.tokenHash),
    uniqueIndex('cloud_sessions_one_live_per_user')
      .on(table.userId)
      .where(sql`status in ('waiting', 'assigned', 'offered', 'answered', 'playing')`),
    index('cloud_sessions_waiting').on(table.createdAt).where(sql`status = 'waiting'`),
    index('cloud_sessions_machine').on(table.machineId, table.status),
    index('cloud_sessions_ended').on(table.endedAt),
    check('cloud_sessions_status', sql`${table.status} in ('waiting', 'assigned', 'offered', 'answered', 'playing', 'ended', 'errored')`),
  ],
);
