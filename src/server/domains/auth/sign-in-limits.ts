import { inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { signInFailures } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';

/** Failed password sign-ins count within this window; the allowed numbers come from the config. */
const signInWindowMinutes = 15;
export type SignInLimits = { perAccount: number; perAddress: number };

/**
 * The counters one attempt touches: the account across all addresses, the account from this address,
 * and this address across all accounts. Always in this order, so concurrent attempts lock rows alike.
 */
type AttemptKeys = { account: string; pair?: string; address?: string };

const keysOf = (name: string, address: string | undefined): AttemptKeys => ({
  account: `account:${name}`,
  pair: address ? `pair:${name}|${address}` : undefined,
  address: address ? `address:${address}` : undefined,
});

/** An attempt counted as failed until settled as a success. */
export type SignInAttempt = { keys: AttemptKeys };

const inWindow = sql`${signInFailures.windowStartedAt} > now() - make_interval(mins => ${signInWindowMinutes})`;

function limitReached(): AppError {
  return new AppError('limit_exceeded', `Too many failed sign-ins; try again in ${signInWindowMinutes} minutes`);
}

/**
 * Counts the attempt as a failure BEFORE the password is checked, in one transaction whose row locks
 * serialise attempts on the same counters (in one process or many): N guesses sent at once consume N
 * attempts. Refused, counting nothing, when this address has used up its failures, or when the account
 * has and this address is among those that failed on it: an address that never failed on the account
 * (its owner's) can still sign in, so nobody can lock anybody out with a few guesses.
 */
export async function reserveSignInAttempt(db: Database, limits: SignInLimits, name: string, address: string | undefined): Promise<SignInAttempt> {
  const keys = keysOf(name, address);
  await db.transaction(async (tx) => {
    const before = new Map<string, number>();
    for (const key of [keys.account, keys.pair, keys.address]) {
      if (!key) continue;
      const [row] = await tx
        .insert(signInFailures)
        .values({ key, failures: 1, windowStartedAt: new Date() })
        .onConflictDoUpdate({
          target: signInFailures.key,
          set: {
            failures: sql`case when ${inWindow} then ${signInFailures.failures} + 1 else 1 end`,
            windowStartedAt: sql`case when ${inWindow} then ${signInFailures.windowStartedAt} else now() end`,
          },
        })
        .returning({ failures: signInFailures.failures });
      before.set(key, row!.failures - 1);
    }
    const count = (key: string | undefined) => (key ? (before.get(key) ?? 0) : 0);
    const addressSpent = keys.address !== undefined && count(keys.address) >= limits.perAddress;
    const pairSpent = count(keys.pair) >= limits.perAccount;
    const accountLockedHere = count(keys.account) >= limits.perAccount && (keys.pair === undefined || count(keys.pair) >= 1);
    // Throwing rolls the increments back: a refused attempt is not counted.
    if (addressSpent || pairSpent || accountLockedHere) throw limitReached();
  });
  return { keys };
}

/**
 * A successful sign-in clears the account's counters and gives this address its attempt back; a
 * failed one stays counted.
 */
export async function settleSuccessfulSignIn(db: Database, attempt: SignInAttempt): Promise<void> {
  const { account, pair, address } = attempt.keys;
  await db.delete(signInFailures).where(inArray(signInFailures.key, pair ? [account, pair] : [account]));
  if (address) {
    await db
      .update(signInFailures)
      .set({ failures: sql`greatest(${signInFailures.failures} - 1, 0)` })
      .where(inArray(signInFailures.key, [address]));
  }
}

/**
 * Counters whose window ended are worth nothing (the next attempt starts a new window): an hourly
 * job (sign-in-counters.job.ts) removes them, so guesses at made-up names and addresses do not pile up rows.
 */
export async function forgetExpiredSignInCounters(db: Database): Promise<number> {
  const removed = await db
    .delete(signInFailures)
    .where(sql`${signInFailures.windowStartedAt} <= now() - make_interval(mins => ${signInWindowMinutes})`)
    .returning({ key: signInFailures.key });
  return removed.length;
}
