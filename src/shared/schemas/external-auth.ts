import { z } from 'zod';
import { passwordSchema, userNameSchema } from './auth.ts';
import { tokenText } from './text.ts';

/** Sign-in providers of spec §1 and §9 (ids as stored in credentials.provider). */
export const signInProviderIds = ['steam', 'github', 'gitlab', 'itch', 'twitch', 'discord'] as const;
export const signInProviderSchema = z.enum(signInProviderIds);
export type SignInProviderId = z.infer<typeof signInProviderSchema>;

/** What an external sign-in is for (spec §3 finish response): sign in, make an account, or link one. */
const externalIntentSchema = z.enum(['login', 'register', 'link']);
export type ExternalIntent = z.infer<typeof externalIntentSchema>;

/** POST /auth/external/start?provider&intent. */
export const externalAuthStartQuery = z.object({ provider: signInProviderSchema, intent: externalIntentSchema });

/**
 * Spec §3 external auth start response: where the browser goes, the fields of a hidden POST form to
 * send there when non-empty (name/value pairs, in order), and the token the client keeps: the
 * provider sends it back as `state`.
 */
export const startedExternalAuthSchema = z.object({
  url: z.string(),
  postParams: z.array(z.object({ name: z.string(), value: z.string() })),
  token: z.string(),
});
export type StartedExternalAuth = z.infer<typeof startedExternalAuthSchema>;

/**
 * POST /auth/external/finish?token&code: token is the start token (the state the provider returned),
 * code what the provider gave the browser (spec §5: the authorization code; Steam: every query
 * parameter as JSON; itch: the access token from the URL fragment).
 */
export const externalAuthFinishQuery = z.object({ token: tokenText(), code: z.string().min(1).max(16_384) });

/** Spec §3 finish response: token is the single-use finish token for users/auth, users/register or a link. */
export const finishedExternalAuthSchema = z.object({ hasUser: z.boolean(), intent: externalIntentSchema, token: z.string() });
export type FinishedExternalAuth = z.infer<typeof finishedExternalAuthSchema>;

/** POST /users/auth?token, /users/register?token, /users/me/credentials?token. */
export const finishTokenQuery = z.object({ token: tokenText() });

/** A way in: provider 'password' (name = the sign-in name) or a provider account (name = its stable id). */
const credentialProviderSchema = z.union([z.literal('password'), signInProviderSchema]);

/** Spec §3 Credential. */
export const credentialSchema = z.object({
  provider: z.string(),
  name: z.string(),
  title: z.string(),
  profileUrl: z.string().nullable(),
  profilePictureUrl: z.string().nullable(),
  created: z.string(),
  lastUsed: z.string().nullable(),
  isPublic: z.boolean(),
});
export type Credential = z.infer<typeof credentialSchema>;

/** DELETE and PATCH /users/me/credentials?provider&name. */
export const credentialQuery = z.object({ provider: credentialProviderSchema, name: z.string().min(1).max(256).regex(/^[^\p{Cc}\p{Cs}]+$/u) });
export const patchCredentialInput = z.object({ isPublic: z.boolean() });

/** POST /users/me/password: a password sign-in for a user who has none yet (one made with a provider). */
export const addPasswordInput = z.object({ name: userNameSchema, password: passwordSchema });
