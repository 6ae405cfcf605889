import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { projects } from './projects.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/**
 * A user's keys for external storefronts (spec §3 Deploy credential). The key is only ever stored
 * sealed (crypto sealSecret: AES-256-GCM under SECRET_KEY) and opened on the server to call the
 * storefront; no reply carries it.
 */
export const deployCredentials = pgTable(
  'deploy_credentials',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    provider: text('provider', { enum: ['steam', 'itch'] }).notNull(),
    sealedKey: text('sealed_key').notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('deploy_credentials_user').on(table.userId, table.createdAt)],
);

/**
 * Where a project deploys (spec §3 Deploy site): a credential plus the storefront's site ('developer/game'
 * on itch.io, the app id on Steam). Deleting the credential removes its sites (spec §6).
 */
export const deploySites = pgTable(
  'deploy_sites',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    credentialId: text('credential_id')
      .notNull()
      .references(() => deployCredentials.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: ['steam', 'itch'] }).notNull(),
    site: text('site').notNull(),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('deploy_sites_project_site').on(table.projectId, table.provider, table.site),
    index('deploy_sites_credential').on(table.credentialId),
  ],
);
