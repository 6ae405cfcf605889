import { z } from 'zod';
import { signInProviderSchema } from './external-auth.ts';

/** What the client needs to know about the instance it talks to (branding, footer links). */
export const instanceInfoSchema = z.object({
  appName: z.string(),
  socialLinks: z.array(z.object({ name: z.string(), href: z.string() })),
  version: z.string(),
  /** Where the store's 'Report content' mail goes (REPORT_EMAIL); null: the user fills it in. */
  reportEmail: z.string().nullable(),
  /** The providers configured on this instance that sign in and register (the others are not offered). */
  signInProviders: z.array(signInProviderSchema),
  /** Every provider configured on this instance, offered for linking to a signed-in account (itch.io only links). */
  linkProviders: z.array(signInProviderSchema),
  /** ORPHAN_PACKAGE_DAYS: a package in no version is deleted this many days after its last touch (0: never). */
  orphanPackageDays: z.number().min(0),
});
export type InstanceInfo = z.infer<typeof instanceInfoSchema>;
