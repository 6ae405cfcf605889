import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  title: text('title').notNull(),
  isAdmin: boolean('is_admin').notNull().default(false),
  createdAt: createdAt(),
});

/** How a user signs in: provider 'password' (name = user name) or an external provider account. */
export const credentials = pgTable(
  'credentials',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    name: text('name').notNull(),
    secretHash: text('secret_hash'),
    title: text('title').notNull(),
    profileUrl: text('profile_url'),
    profilePictureUrl: text('profile_picture_url'),
    isPublic: boolean('is_public').notNull().default(false),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [uniqueIndex('credentials_provider_name').on(table.provider, table.name), index('credentials_user').on(table.userId)],
);

/** Browser sessions (require_session) and API tokens; only the SHA-256 of the token is kept. */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    requireSession: boolean('require_session').notNull(),
    title: text('title'),
    createdAt: createdAt(),
    lastAuthAt: timestamp('last_auth_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The last request it authorised (updated at most every few minutes); null for an API token never used yet. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    userAgent: text('user_agent'),
  },
  (table) => [uniqueIndex('sessions_token_hash').on(table.tokenHash), index('sessions_user').on(table.userId)],
);

export const userPrivileges = pgTable(
  'user_privileges',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    privilege: text('privilege').notNull(),
    grantedAt: timestamp('granted_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.privilege] })],
);

/** Failed sign-in counters per account and per address, shared by every process (scale-out). */
export const signInFailures = pgTable('sign_in_failures', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  windowStartedAt: timestamp('window_started_at', { withTimezone: true, mode: 'date' }).notNull(),
});
