import { index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

/** The identity a provider vouched for (finish step), kept until users/auth, users/register or a link uses it. */
export type ExternalIdentityRow = { provider: string; name: string; title: string; profileUrl: string | null; profilePictureUrl: string | null };

/**
 * External sign-ins in progress (spec §4). A row is a single-use token, stored as its SHA-256: stage
 * 'start' from start to finish (with the sealed provider state: PKCE verifier, Steam's return_to), then
 * stage 'finish' from finish to the step that uses the identity. Expired rows are swept hourly.
 */
export const externalAuthFlows = pgTable(
  'external_auth_flows',
  {
    id: text('id').primaryKey(),
    stage: text('stage', { enum: ['start', 'finish'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    provider: text('provider').notNull(),
    intent: text('intent', { enum: ['login', 'register', 'link'] }).notNull(),
    /** The signed-in user who started a link (null for sign-in and registration). */
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** Start stage: the redirect address sent to the provider and its sealed state (crypto sealing). */
    redirectUri: text('redirect_uri'),
    sealedState: text('sealed_state'),
    /** Finish stage: who the provider said the browser is. */
    identity: jsonb('identity').$type<ExternalIdentityRow>(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [uniqueIndex('external_auth_flows_token_hash').on(table.tokenHash), index('external_auth_flows_expires').on(table.expiresAt)],
);
