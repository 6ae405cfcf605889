import { z } from 'zod';
import { signInProviderSchema } from './external-auth.ts';

/** What the client needs to know about the instance it talks to (branding, footer links). */
export const instanceInfoSchema = z.object({
  appName: z.string(),
  socialLinks: z.array(z.object({ name: z.string(), href: z.string() })),
  version: z.string(),
  /** Where the store's 'Report content' mail goes (REPORT_EMAIL); null: the user fills it in. */
  reportEmail: z.string().nullable(),
  /** The sign-in providers configured on this instance (the others are not offered). */
  signInProviders: z.array(signInProviderSchema),
});
export type InstanceInfo = z.infer<typeof instanceInfoSchema>;
