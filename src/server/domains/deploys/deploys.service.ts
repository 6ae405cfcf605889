import { and, asc, count, eq, inArray } from 'drizzle-orm';
import {
  createDeployCredentialInput,
  createDeploySiteInput,
  parseDeploySiteAddress,
  type AvailableSite,
  type DeletedDeployCredential,
  type DeployCredential,
  type DeploySite,
} from '../../../shared/schemas/deploy.ts';
import type { Executor } from '../../db/client.ts';
import { newId } from '../../db/ids.ts';
import { deployCredentials, deploySites, projects, users } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound, refusal } from '../../errors.ts';
import { requireUser, type Actor } from '../auth/actor.ts';
import { loadProjectAccess, requireAction, requireMember } from '../projects/access.ts';
import { butlerMissingMessage, findButler } from './butler.ts';
import { checkItchKey, listItchGames } from './itch-api.ts';

/** More would be a mistake or abuse; the limits keep lists and confirmations readable. */
const maxCredentialsPerUser = 100;
const maxSitesPerProject = 100;

export const steamNotSupported = () =>
  refusal(
    'not_supported',
    'Steam deploy credentials are not supported: Steam uploads builds through SteamPipe with a builder account and Steam Guard, which this server cannot sign in to. Deploy to itch.io, or upload to Steam with steamcmd.',
    'steam_not_supported',
    { provider: 'steam' },
  );

type CredentialRow = typeof deployCredentials.$inferSelect;
type CredentialSite = DeployCredential['sites'][number];

/** The deploy sites of these credentials (any project), oldest first, grouped by credential. */
async function sitesOfCredentials(db: Executor, credentialIds: string[]): Promise<Map<string, CredentialSite[]>> {
  const byCredential = new Map<string, CredentialSite[]>();
  if (credentialIds.length === 0) return byCredential;
  const rows = await db
    .select({ id: deploySites.id, credentialId: deploySites.credentialId, projectId: deploySites.projectId, projectTitle: projects.title, site: deploySites.site })
    .from(deploySites)
    .innerJoin(projects, eq(projects.id, deploySites.projectId))
    .where(inArray(deploySites.credentialId, credentialIds))
    .orderBy(asc(deploySites.createdAt), asc(deploySites.id));
  for (const row of rows) {
    const list = byCredential.get(row.credentialId) ?? [];
    list.push({ id: row.id, projectId: row.projectId, projectTitle: row.projectTitle, site: row.site });
    byCredential.set(row.credentialId, list);
  }
  return byCredential;
}

/** Never the key: not even sealed. */
function describeCredential(row: CredentialRow, sites: CredentialSite[]): DeployCredential {
  return { id: row.id, title: row.title, provider: row.provider, created: row.createdAt.toISOString(), sites };
}

/** GET /users/me/deploy-credentials: the caller's own, oldest first, each with the sites using it. */
export async function listDeployCredentials(deps: Deps, actor: Actor): Promise<DeployCredential[]> {
  const user = requireUser(actor);
  const rows = await deps.db
    .select()
    .from(deployCredentials)
    .where(eq(deployCredentials.userId, user.userId))
    .orderBy(asc(deployCredentials.createdAt), asc(deployCredentials.id));
  const sites = await sitesOfCredentials(
    deps.db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => describeCredential(row, sites.get(row.id) ?? []));
}

/**
 * POST /users/me/deploy-credentials {title, provider, key}. itch.io keys are checked with itch.io before
 * they are stored (sealed); Steam ones are not supported (spec §5). The title defaults to 'Key {n}'.
 */
export async function createDeployCredential(deps: Deps, actor: Actor, rawInput: unknown): Promise<DeployCredential> {
  const user = requireUser(actor);
  const input = createDeployCredentialInput.parse(rawInput);
  if (input.provider === 'steam') throw steamNotSupported();
  // Outside the transaction: itch.io may take up to its timeout, and no row is held meanwhile.
  await checkItchKey(deps.config.deploys.itchApiUrl, input.key);
  const sealedKey = deps.keys.sealSecret(input.key);
  return deps.db.transaction(async (tx) => {
    // Serialises one user's additions, so two untitled keys added at once get 'Key 1' and 'Key 2'.
    const [owner] = await tx.select({ id: users.id }).from(users).where(eq(users.id, user.userId)).for('update');
    if (!owner) throw notFound('user');
    const [existing] = await tx.select({ count: count() }).from(deployCredentials).where(eq(deployCredentials.userId, user.userId));
    const held = existing?.count ?? 0;
    if (held >= maxCredentialsPerUser) throw new AppError('limit_exceeded', `You can keep at most ${maxCredentialsPerUser} deploy credentials: delete one first`);
    const title = input.title || `Key ${held + 1}`;
    const [row] = await tx.insert(deployCredentials).values({ id: newId(), userId: user.userId, title, provider: input.provider, sealedKey }).returning();
    return describeCredential(row!, []);
  });
}

/** The caller's own credential; anyone else's is not_found (its existence does not leak). */
async function ownCredential(db: Executor, userId: string, credentialId: string): Promise<CredentialRow> {
  const [row] = await db.select().from(deployCredentials).where(and(eq(deployCredentials.id, credentialId), eq(deployCredentials.userId, userId)));
  if (!row) throw notFound('deploy-credential');
  return row;
}

/** DELETE /users/me/deploy-credentials/{id}: the deploy sites using it go too (spec §6); they are returned. */
export async function deleteDeployCredential(deps: Deps, actor: Actor, credentialId: string): Promise<DeletedDeployCredential> {
  const user = requireUser(actor);
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(deployCredentials)
      .where(and(eq(deployCredentials.id, credentialId), eq(deployCredentials.userId, user.userId)))
      .for('update');
    if (!row) throw notFound('deploy-credential');
    const sites = (await sitesOfCredentials(tx, [row.id])).get(row.id) ?? [];
    await tx.delete(deploySites).where(eq(deploySites.credentialId, row.id));
    await tx.delete(deployCredentials).where(eq(deployCredentials.id, row.id));
    return { ok: true, deletedSites: sites };
  });
}

/** GET /users/me/deploy-credentials/{id}/available-sites: the key's itch.io games. */
export async function listAvailableSites(deps: Deps, actor: Actor, credentialId: string): Promise<AvailableSite[]> {
  const user = requireUser(actor);
  const row = await ownCredential(deps.db, user.userId, credentialId);
  if (row.provider === 'steam') throw steamNotSupported();
  return listItchGames(deps.config.deploys.itchApiUrl, deps.keys.openSecret(row.sealedKey));
}

type SiteRow = { id: string; provider: 'steam' | 'itch'; site: string; credentialId: string; credentialTitle: string; credentialOwnerTitle: string; createdAt: Date };

const siteColumns = {
  id: deploySites.id,
  provider: deploySites.provider,
  site: deploySites.site,
  credentialId: deploySites.credentialId,
  credentialTitle: deployCredentials.title,
  credentialOwnerTitle: users.title,
  createdAt: deploySites.createdAt,
};

/** Why deploys to a site cannot start here now: Steam is not supported; itch.io needs butler installed. */
function deployProblemOf(deps: Pick<Deps, 'config'>, provider: SiteRow['provider']): Pick<DeploySite, 'deployProblem' | 'deployProblemMessage'> {
  if (provider === 'steam') return { deployProblem: 'steam_not_supported', deployProblemMessage: steamNotSupported().message };
  if (!findButler(deps.config.deploys)) return { deployProblem: 'butler_missing', deployProblemMessage: butlerMissingMessage };
  return { deployProblem: null, deployProblemMessage: null };
}

function describeSite(deps: Pick<Deps, 'config'>, row: SiteRow): DeploySite {
  return {
    ...deployProblemOf(deps, row.provider),
    id: row.id,
    provider: row.provider,
    site: row.site,
    credentialId: row.credentialId,
    credentialTitle: row.credentialTitle,
    credentialOwnerTitle: row.credentialOwnerTitle,
    created: row.createdAt.toISOString(),
  };
}

function selectSites(db: Executor) {
  return db
    .select(siteColumns)
    .from(deploySites)
    .innerJoin(deployCredentials, eq(deployCredentials.id, deploySites.credentialId))
    .innerJoin(users, eq(users.id, deployCredentials.userId));
}

/** GET /projects/{project}/deploy-sites: for members (testers too: they see where versions go). */
export async function listDeploySites(deps: Deps, actor: Actor, projectId: string): Promise<DeploySite[]> {
  const access = await loadProjectAccess(deps, actor, projectId);
  requireMember(access);
  const rows = await selectSites(deps.db).where(eq(deploySites.projectId, projectId)).orderBy(asc(deploySites.createdAt), asc(deploySites.id));
  return rows.map((row) => describeSite(deps, row));
}

/**
 * POST /projects/{project}/deploy-sites {credential, site}: needs createDeploySite; the credential must be
 * the caller's own (another user's is not_found); the site is one of the spec's address forms.
 */
export async function createDeploySite(deps: Deps, actor: Actor, projectId: string, rawInput: unknown): Promise<DeploySite> {
  const input = createDeploySiteInput.parse(rawInput);
  return deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    requireAction(access, 'createDeploySite');
    const user = requireUser(actor);
    const credential = await ownCredential(tx, user.userId, input.credential);
    const site = parseDeploySiteAddress(credential.provider, input.site);
    if (site === undefined) {
      const forms = credential.provider === 'itch' ? 'developer.itch.io/game or developer/game' : 'a Steam store app address or an app id';
      throw new AppError('bad_param', `Invalid \`site\`: expected ${forms}`, { field: 'site' });
    }
    const [held] = await tx.select({ count: count() }).from(deploySites).where(eq(deploySites.projectId, projectId));
    if ((held?.count ?? 0) >= maxSitesPerProject) throw new AppError('limit_exceeded', `A project can have at most ${maxSitesPerProject} deploy sites: delete one first`);
    const [duplicate] = await tx
      .select({ id: deploySites.id })
      .from(deploySites)
      .where(and(eq(deploySites.projectId, projectId), eq(deploySites.provider, credential.provider), eq(deploySites.site, site)));
    if (duplicate) throw new AppError('name_conflict', `This project already deploys to ${site}`, { field: 'site' });
    const id = newId();
    await tx.insert(deploySites).values({ id, projectId, credentialId: credential.id, provider: credential.provider, site, createdBy: user.userId });
    const [row] = await selectSites(tx).where(eq(deploySites.id, id));
    return describeSite(deps, row!);
  });
}

/** DELETE /projects/{project}/deploy-sites/{site}: needs deleteDeploySite; another project's site is not_found. */
export async function deleteDeploySite(deps: Deps, actor: Actor, projectId: string, siteId: string): Promise<void> {
  const access = await loadProjectAccess(deps, actor, projectId);
  requireAction(access, 'deleteDeploySite');
  const deleted = await deps.db
    .delete(deploySites)
    .where(and(eq(deploySites.id, siteId), eq(deploySites.projectId, projectId)))
    .returning({ id: deploySites.id });
  if (deleted.length === 0) throw notFound('deploy-site');
}
