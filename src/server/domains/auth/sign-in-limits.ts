import { inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { signInFailures } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';

/** Failed password sign-ins count within this window; the allowed numbers come from the config. */
export const signInWindowMinutes = 15;
export type SignInLimits = { perAccount: number; perAddress: number };

const keysOf = (name: string, address: string | undefined) => ({
  account: `account:${name}`,
  address: address ? `address:${address}` : undefined,
});

/** Refuses a sign-in while its account or address has used up its failures in the current window. */
export async function assertSignInAllowed(db: Database, limits: SignInLimits, name: string, address: string | undefined): Promise<void> {
  const keys = keysOf(name, address);
  const rows = await db
    .select({ key: signInFailures.key, failures: signInFailures.failures })
    .from(signInFailures)
    .where(
      sql`${inArray(signInFailures.key, [keys.account, keys.address].filter((key): key is string => !!key))} and ${signInFailures.windowStartedAt} > now() - make_interval(mins => ${signInWindowMinutes})`,
    );
  for (const row of rows) {
    const limit = row.key === keys.account ? limits.perAccount : limits.perAddress;
    if (row.failures >= limit) {
      throw new AppError('limit_exceeded', `Too many failed sign-ins; try again in ${signInWindowMinutes} minutes`);
    }
  }
}

export async function recordSignInFailure(db: Database, name: string, address: string | undefined): Promise<void> {
  const keys = keysOf(name, address);
  for (const key of [keys.account, keys.address]) {
    if (!key) continue;
    await db
      .insert(signInFailures)
      .values({ key, failures: 1, windowStartedAt: new Date() })
      .onConflictDoUpdate({
        target: signInFailures.key,
        set: {
          failures: sql`case when ${signInFailures.windowStartedAt} > now() - make_interval(mins => ${signInWindowMinutes}) then ${signInFailures.failures} + 1 else 1 end`,
          windowStartedAt: sql`case when ${signInFailures.windowStartedAt} > now() - make_interval(mins => ${signInWindowMinutes}) then ${signInFailures.windowStartedAt} else now() end`,
        },
      });
  }
}

export async function clearSignInFailures(db: Database, name: string): Promise<void> {
  await db.delete(signInFailures).where(inArray(signInFailures.key, [keysOf(name, undefined).account]));
}
