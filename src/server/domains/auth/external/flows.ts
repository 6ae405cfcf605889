import { and, eq, gt, lte, sql } from 'drizzle-orm';
import type { ExternalIntent, SignInProviderId } from '../../../../shared/schemas/external-auth.ts';
import { hashToken } from '../../../crypto/index.ts';
import type { Database, Executor } from '../../../db/client.ts';
import { newId } from '../../../db/ids.ts';
import { externalAuthFlows } from '../../../db/schema/index.ts';
import { AppError, refusal } from '../../../errors.ts';
import type { ExternalIdentity } from './identity.ts';

/** Start and finish tokens live 10 minutes: long enough for a provider's consent page, short if leaked. */
const flowLifetimeMs = 10 * 60_000;

export type FlowRow = typeof externalAuthFlows.$inferSelect;

/** Unknown, used, expired, or a token of the other stage: the same answer, and nothing changes. */
export function flowTokenRefused(): AppError {
  return refusal('wrong_auth', 'This sign-in attempt is unknown, used or expired: start again', 'sign_in_attempt_expired');
}

export async function saveStartFlow(
  db: Executor,
  flow: { token: string; provider: SignInProviderId; intent: ExternalIntent; userId: string | null; redirectUri: string; sealedState: string },
): Promise<void> {
  await db.insert(externalAuthFlows).values({
    id: newId(),
    stage: 'start',
    tokenHash: hashToken(flow.token),
    provider: flow.provider,
    intent: flow.intent,
    userId: flow.userId,
    redirectUri: flow.redirectUri,
    sealedState: flow.sealedState,
    expiresAt: sql`now() + ${`${flowLifetimeMs} milliseconds`}::interval`,
  });
}

/** Consumes a live start token at once (before the provider is asked), so a replay finds nothing. */
export async function takeStartFlow(db: Executor, token: string): Promise<FlowRow | undefined> {
  const [flow] = await db
    .delete(externalAuthFlows)
    .where(and(eq(externalAuthFlows.tokenHash, hashToken(token)), eq(externalAuthFlows.stage, 'start'), gt(externalAuthFlows.expiresAt, sql`now()`)))
    .returning();
  return flow;
}

export async function saveFinishFlow(
  db: Executor,
  flow: { token: string; provider: SignInProviderId; intent: ExternalIntent; userId: string | null; identity: ExternalIdentity },
): Promise<void> {
  await db.insert(externalAuthFlows).values({
    id: newId(),
    stage: 'finish',
    tokenHash: hashToken(flow.token),
    provider: flow.provider,
    intent: flow.intent,
    userId: flow.userId,
    identity: flow.identity,
    expiresAt: sql`now() + ${`${flowLifetimeMs} milliseconds`}::interval`,
  });
}

/**
 * A live finish token, locked for the transaction that uses it: a concurrent use waits, then finds it
 * gone. The caller deletes it only once everything else succeeded, so a refusal leaves it as it was.
 */
export async function lockFinishFlow(tx: Executor, token: string): Promise<(FlowRow & { identity: ExternalIdentity }) | undefined> {
  const [flow] = await tx
    .select()
    .from(externalAuthFlows)
    .where(and(eq(externalAuthFlows.tokenHash, hashToken(token)), eq(externalAuthFlows.stage, 'finish'), gt(externalAuthFlows.expiresAt, sql`now()`)))
    .for('update');
  return flow?.identity ? (flow as FlowRow & { identity: ExternalIdentity }) : undefined;
}

export async function deleteFlow(tx: Executor, id: string): Promise<void> {
  await tx.delete(externalAuthFlows).where(eq(externalAuthFlows.id, id));
}

/** The hourly sweep: expired tokens can no longer be used, their rows only take space. */
export async function forgetExpiredFlows(db: Database): Promise<number> {
  const removed = await db.delete(externalAuthFlows).where(lte(externalAuthFlows.expiresAt, sql`now()`)).returning({ id: externalAuthFlows.id });
  return removed.length;
}
