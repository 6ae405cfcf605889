import { and, asc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { createInviteInput, type CreatedInvite, type Invite, type InviteView, type JoinedInvite } from '../../../shared/schemas/projects.ts';
import { invites, projects, projectUsers } from '../../db/schema/index.ts';
import { newId } from '../../db/ids.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound, refusal } from '../../errors.ts';
import { requireUser, type Actor } from '../auth/actor.ts';
import { generateToken, hashToken } from '../../crypto/index.ts';
import { loadProjectAccess, requireAction } from './access.ts';

/** Spec §9: a one-time invite is approved, lasts 24 hours and admits one person. */
const oneTimeInviteMs = 24 * 60 * 60 * 1000;

type InviteRow = typeof invites.$inferSelect;

function describeInvite(row: InviteRow): Invite {
  return {
    id: row.id,
    approved: row.approved,
    expires: row.expiresAt?.toISOString() ?? null,
    seats: row.seats,
    uses: row.uses,
    oneTime: row.oneTime,
    created: row.createdAt.toISOString(),
  };
}

/** GET .../invites: needs createInvite; oldest first. */
export async function listInvites(deps: Deps, actor: Actor, projectId: string): Promise<Invite[]> {
  const access = await loadProjectAccess(deps, actor, projectId);
  requireAction(access, 'createInvite');
  const rows = await deps.db.select().from(invites).where(eq(invites.projectId, projectId)).orderBy(asc(invites.createdAt), asc(invites.id));
  return rows.map(describeInvite);
}

/** POST .../invites: needs createInvite; the token is returned once and stored only as its SHA-256. */
export async function createInvite(deps: Deps, actor: Actor, projectId: string, rawInput: unknown): Promise<CreatedInvite> {
  const input = createInviteInput.parse(rawInput ?? {});
  const access = await loadProjectAccess(deps, actor, projectId);
  requireAction(access, 'createInvite');
  const user = requireUser(actor);
  const expiresAt = input.oneTime ? new Date(Date.now() + oneTimeInviteMs) : input.expires ? new Date(input.expires) : null;
  if (!input.oneTime && expiresAt && expiresAt.getTime() <= Date.now()) throw new AppError('bad_param', 'Invalid `expires`: it must be in the future');
  const token = generateToken('ci');
  const [row] = await deps.db
    .insert(invites)
    .values({
      id: newId(),
      projectId,
      tokenHash: hashToken(token),
      approved: input.oneTime ? true : input.approved,
      expiresAt,
      seats: input.oneTime ? 1 : input.seats,
      oneTime: input.oneTime,
      createdBy: user.userId,
    })
    .returning();
  return { ...describeInvite(row!), token, projectId, projectTitle: access.project.title };
}

/** DELETE .../invites/{invite}: needs createInvite; members who joined through it stay. */
export async function deleteInvite(deps: Deps, actor: Actor, projectId: string, inviteId: string): Promise<void> {
  const access = await loadProjectAccess(deps, actor, projectId);
  requireAction(access, 'createInvite');
  const deleted = await deps.db
    .delete(invites)
    .where(and(eq(invites.id, inviteId), eq(invites.projectId, projectId)))
    .returning({ id: invites.id });
  if (deleted.length === 0) throw notFound('invite');
}

const noSeatsLeft = () => refusal('not_found', 'This invite has no seats left', 'used_up');

/**
 * The live invite of a token, or the reason it cannot be used. Unknown, expired and used-up invites are
 * all not_found (an invite that can no longer be used is gone), each with its own message and, for
 * clients that explain it in the user's language, details.reason.
 */
async function getUsableInvite(deps: Deps, token: string) {
  const [row] = await deps.db
    .select({ invite: invites, projectTitle: projects.title })
    .from(invites)
    .innerJoin(projects, eq(projects.id, invites.projectId))
    .where(eq(invites.tokenHash, hashToken(token)));
  if (!row) throw notFound('invite');
  if (row.invite.expiresAt && row.invite.expiresAt.getTime() <= Date.now()) throw refusal('not_found', 'This invite has expired', 'expired');
  if (row.invite.seats !== null && row.invite.uses >= row.invite.seats) throw noSeatsLeft();
  return row;
}

/** GET /invites?token: anyone holding the token may see what it invites to. */
export async function viewInvite(deps: Deps, actor: Actor, token: string): Promise<InviteView> {
  const { invite, projectTitle } = await getUsableInvite(deps, token);
  let alreadyMember = false;
  if (actor.kind === 'user') {
    const [member] = await deps.db
      .select({ userId: projectUsers.userId })
      .from(projectUsers)
      .where(and(eq(projectUsers.projectId, invite.projectId), eq(projectUsers.userId, actor.userId)));
    alreadyMember = member !== undefined;
  }
  return {
    token,
    approved: invite.approved,
    expires: invite.expiresAt?.toISOString() ?? null,
    seats: invite.seats,
    projectId: invite.projectId,
    projectTitle,
    alreadyMember,
  };
}

/**
 * POST /invites?token: joins the project as the invite's role (pending when it needs approval). The seat
 * is taken with a conditional UPDATE (uses < seats, not expired) so concurrent joins never overshoot;
 * a membership that already exists (pending too) is already_member and gives the seat back (rollback).
 */
export async function joinInvite(deps: Deps, actor: Actor, token: string): Promise<JoinedInvite> {
  const user = requireUser(actor);
  const { invite, projectTitle } = await getUsableInvite(deps, token);
  return deps.db.transaction(async (tx) => {
    const [member] = await tx
      .select({ userId: projectUsers.userId })
      .from(projectUsers)
      .where(and(eq(projectUsers.projectId, invite.projectId), eq(projectUsers.userId, user.userId)));
    if (member) throw new AppError('already_member', 'You are already a member of this project');
    const [taken] = await tx
      .update(invites)
      .set({ uses: sql`${invites.uses} + 1` })
      .where(
        and(
          eq(invites.id, invite.id),
          or(isNull(invites.seats), lt(invites.uses, invites.seats)),
          or(isNull(invites.expiresAt), gt(invites.expiresAt, sql`now()`)),
        ),
      )
      .returning({ id: invites.id });
    if (!taken) throw noSeatsLeft();
    const [inserted] = await tx
      .insert(projectUsers)
      .values({ projectId: invite.projectId, userId: user.userId, role: invite.role, pending: !invite.approved, inviteId: invite.id })
      .onConflictDoNothing()
      .returning({ userId: projectUsers.userId });
    if (!inserted) throw new AppError('already_member', 'You are already a member of this project');
    return { projectId: invite.projectId, projectTitle, pending: !invite.approved };
  });
}
