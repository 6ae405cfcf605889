import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** An image referenced by a project's description (spec §3 Markdown content); uploads come with their own issue. */
export type DescriptionImage = { id: string; width: number; height: number; scale: number; url: string };

/**
 * Quota overrides are nullable: null inherits the instance default (config QUOTA_*), 0 means "no limit"
 * for counts and times. Times are seconds.
 */
export const projects = pgTable(
  'projects',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    isPublic: boolean('is_public').notNull().default(false),
    quotaPackageSize: bigint('quota_package_size', { mode: 'number' }),
    quotaBranchVersionsCount: integer('quota_branch_versions_count'),
    quotaBranchVersionsTime: bigint('quota_branch_versions_time', { mode: 'number' }),
    quotaBranchVersionsNonCurrentTime: bigint('quota_branch_versions_non_current_time', { mode: 'number' }),
    descriptionMarkdown: text('description_markdown').notNull().default(''),
    descriptionLang: text('description_lang'),
    descriptionImages: jsonb('description_images').$type<DescriptionImage[]>().notNull().default([]),
    /** Store tags (genre and such, src/shared/schemas/store-tags.ts), normalised, in the owner's order. */
    storeTags: jsonb('store_tags').$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (table) => [
    check('projects_quotas_non_negative', sql`coalesce(${table.quotaPackageSize}, 0) >= 0 and coalesce(${table.quotaBranchVersionsCount}, 0) >= 0 and coalesce(${table.quotaBranchVersionsTime}, 0) >= 0 and coalesce(${table.quotaBranchVersionsNonCurrentTime}, 0) >= 0`),
  ],
);

export const projectRoles = ['tester', 'developer', 'admin'] as const;

/**
 * Team members. The owner is a flag on one admin row (at most one per project). `pending` rows came
 * through an invite that needs admin approval: they grant nothing until an admin sets their role.
 */
export const projectUsers = pgTable(
  'project_users',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: projectRoles }).notNull(),
    isOwner: boolean('is_owner').notNull().default(false),
    pending: boolean('pending').notNull().default(false),
    /** The invite the member joined through, if any (kept for the manage page; null once the invite is deleted). */
    inviteId: text('invite_id').references(() => invites.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.userId] }),
    index('project_users_user').on(table.userId),
    uniqueIndex('project_users_one_owner').on(table.projectId).where(sql`${table.isOwner}`),
    check('project_users_role', sql`${table.role} in ('tester', 'developer', 'admin')`),
    check('project_users_owner_not_pending', sql`not (${table.isOwner} and ${table.pending})`),
  ],
);

/** Stars of signed-in users; a non-member who starred a public project has the role 'starred'. */
export const projectStars = pgTable(
  'project_stars',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.userId] }), index('project_stars_user').on(table.userId)],
);

/**
 * Invite links; only the SHA-256 of the token is kept. approved = joining makes a member at once,
 * otherwise a pending member an admin approves. seats null = unlimited; uses counts joins and is
 * raised with a conditional UPDATE (uses < seats) so concurrent joins never overshoot.
 */
export const invites = pgTable(
  'invites',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    role: text('role', { enum: projectRoles }).notNull().default('tester'),
    approved: boolean('approved').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    seats: integer('seats'),
    uses: integer('uses').notNull().default(0),
    oneTime: boolean('one_time').notNull().default(false),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('invites_token_hash').on(table.tokenHash),
    index('invites_project').on(table.projectId),
    check('invites_seats', sql`${table.seats} is null or ${table.seats} > 0`),
    check('invites_uses', sql`${table.uses} >= 0 and (${table.seats} is null or ${table.uses} <= ${table.seats})`),
    check('invites_role', sql`${table.role} in ('tester', 'developer', 'admin')`),
  ],
);

/** Branch retention (spec §3): null = instance/project default applies; times are seconds. */
export const branches = pgTable(
  'branches',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    isPublic: boolean('is_public').notNull().default(false),
    quotaCount: integer('quota_count'),
    quotaTime: bigint('quota_time', { mode: 'number' }),
    quotaNonCurrentTime: bigint('quota_non_current_time', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('branches_project_title').on(table.projectId, table.title),
    check('branches_quotas_non_negative', sql`coalesce(${table.quotaCount}, 0) >= 0 and coalesce(${table.quotaTime}, 0) >= 0 and coalesce(${table.quotaNonCurrentTime}, 0) >= 0`),
  ],
);

export const versions = pgTable(
  'versions',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('versions_project_title').on(table.projectId, table.title), index('versions_project_created').on(table.projectId, table.createdAt)],
);

/**
 * Publish history: one row per publish of a version to a branch (a version may be published to the
 * same branch again later). A branch's current version is its latest row by (published_at, id);
 * services take published_at from clock_timestamp() under a lock on the branch row.
 */
export const branchVersions = pgTable(
  'branch_versions',
  {
    id: text('id').primaryKey(),
    branchId: text('branch_id')
      .notNull()
      .references(() => branches.id, { onDelete: 'cascade' }),
    versionId: text('version_id')
      .notNull()
      .references(() => versions.id, { onDelete: 'cascade' }),
    publishedAt: timestamp('published_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('branch_versions_branch_published').on(table.branchId, table.publishedAt), index('branch_versions_version').on(table.versionId)],
);
