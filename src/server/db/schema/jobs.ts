import { sql } from 'drizzle-orm';
import { check, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from './projects.ts';

export const jobStatuses = ['queued', 'running', 'succeeded', 'errored'] as const;
export type JobStatus = (typeof jobStatuses)[number];

const time = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The job queue (DESIGN.md "Jobs and events"). Any process claims a due job with one UPDATE over a
 * `FOR UPDATE SKIP LOCKED` subquery and holds it under a lease (locked_by, locked_until): a job whose
 * process died is taken again once its lease ends. dedupe_key makes "at most one queued job of a kind
 * per key" a database fact (partial unique index), so N processes cannot queue duplicates; a running
 * job does not count, so work that arrives while it runs is queued again.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    status: text('status', { enum: jobStatuses }).notNull().default('queued'),
    payload: jsonb('payload').notNull().default({}),
    output: jsonb('output'),
    /** 0..1 while running; published as job_updated events by the packages issue. */
    progress: doublePrecision('progress'),
    error: text('error'),
    /** What a running job is doing, in its kind's words (a deploy: downloading, unpacking, uploading). */
    stage: text('stage'),
    /** The newest lines (at most maxJobLogLines) the job wrote for people to read; logCount counts every line ever written. */
    log: jsonb('log').$type<string[]>().notNull().default([]),
    logCount: integer('log_count').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(3),
    runAt: time('run_at').notNull().defaultNow(),
    lockedBy: text('locked_by'),
    lockedUntil: time('locked_until'),
    dedupeKey: text('dedupe_key'),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'cascade' }),
    createdAt: time('created_at').notNull().defaultNow(),
    finishedAt: time('finished_at'),
  },
  (table) => [
    index('jobs_claim').on(table.status, table.runAt),
    index('jobs_project').on(table.projectId),
    uniqueIndex('jobs_kind_dedupe_key_queued').on(table.kind, table.dedupeKey).where(sql`status = 'queued'`),
    check('jobs_status', sql`${table.status} in ('queued', 'running', 'succeeded', 'errored')`),
    check('jobs_attempts', sql`${table.attempts} >= 0 and ${table.maxAttempts} >= 1`),
  ],
);
