import { z } from 'zod';

/** What the client needs to know about the instance it talks to (branding, footer links). */
export const instanceInfoSchema = z.object({
  appName: z.string(),
  socialLinks: z.array(z.object({ name: z.string(), href: z.string() })),
  version: z.string(),
  /** Where the store's 'Report content' mail goes (REPORT_EMAIL); null: the user fills it in. */
  reportEmail: z.string().nullable(),
});
export type InstanceInfo = z.infer<typeof instanceInfoSchema>;
