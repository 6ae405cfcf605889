import { z } from 'zod';
import { passwordMaxLength, passwordMinLength } from './password-rules.ts';
import { singleLineText } from './text.ts';
import { privilegeSchema } from './privileges.ts';

/** Sign-in names: lower-case letters, digits, '.', '_', '-'; compared case-insensitively. */
export const userNameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(3)
  .max(32)
  .regex(/^[a-z0-9][a-z0-9._-]*$/);

export const passwordSchema = z.string().min(passwordMinLength).max(passwordMaxLength);

export const passwordSignInInput = z.object({
  name: userNameSchema,
  password: passwordSchema,
  /** 'login' (default) signs in an existing account; 'register' creates one. */
  intent: z.enum(['login', 'register']).default('login'),
  /** Shown as the profile name on registration; defaults to the user name. */
  title: singleLineText(1, 64).optional(),
});
export type PasswordSignInInput = z.input<typeof passwordSignInInput>;

const isoDate = z.string();

const userInfoSchema = z.object({ id: z.string(), title: z.string() });

/** Spec §3 Session; every field null for a visitor. */
export const sessionSchema = z.object({
  id: z.string().nullable(),
  started: isoDate.nullable(),
  lastAuth: isoDate.nullable(),
  expiration: isoDate.nullable(),
  requireSession: z.boolean(),
  userInfo: userInfoSchema.nullable(),
  userPrivileges: z.array(privilegeSchema),
  authToken: z.string().nullable(),
  authRequired: z.boolean(),
});
export type Session = z.infer<typeof sessionSchema>;
