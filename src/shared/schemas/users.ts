import { z } from 'zod';
import { recordIdSchema, singleLineText, userRefSchema } from './text.ts';
import { privilegeSchema } from './privileges.ts';

const userTitleSchema = singleLineText(1, 64);

export const patchMeInput = z.object({ title: userTitleSchema });

export const meSchema = z.object({
  id: z.string(),
  title: z.string(),
  name: z.string().nullable(),
  isAdmin: z.boolean(),
  privileges: z.array(privilegeSchema),
  created: z.string(),
});
export type Me = z.infer<typeof meSchema>;

const sessionIdSchema = recordIdSchema;

export const createApiTokenInput = z.object({
  title: singleLineText(1, 64).optional(),
  /** ISO 8601 time in the future, or null/absent for a token that never expires. */
  expires: z.iso.datetime({ offset: true }).nullable().optional(),
});

export const sessionItemSchema = z.object({
  id: z.string(),
  title: z.string().nullable(),
  started: z.string(),
  lastAuth: z.string(),
  /** Null for an API token no request has used yet. */
  lastUsed: z.string().nullable(),
  expiration: z.string().nullable(),
  requireSession: z.boolean(),
  isCurrent: z.boolean(),
});
export type SessionItem = z.infer<typeof sessionItemSchema>;

export const createdApiTokenSchema = z.object({ session: sessionItemSchema, token: z.string() });

export const adminPrivilegeInput = z.object({
  /** User id or sign-in name. */
  user: userRefSchema,
  privilege: privilegeSchema,
});
