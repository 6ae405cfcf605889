import { and, asc, eq, inArray } from 'drizzle-orm';
import { putProjectMediaInput, type ProjectMedia } from '../../../shared/schemas/project-media.ts';
import type { Executor } from '../../db/client.ts';
import { contentImages, projectMedia } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import { loadProjectAccess, requireAction } from '../projects/access.ts';
import { describeContentImage } from './content-images.service.ts';

/**
 * A project's cover and screenshots (issue 19): finalized content images of the project (uploaded as
 * in the paste flow), kept in project_media (schema/content-images.ts). Each is answered as the
 * images of markdown content are listed, {id, width, height, scale, url}, url being its largest size
 * on `appUrl` (the request's origin or PUBLIC_URL; the store's cached replies pass PUBLIC_URL or ''
 * for a root-relative path).
 */

/** The columns describeMediaImage reads (joins select them under one key). */
export const mediaImageColumns = {
  id: contentImages.id,
  width: contentImages.width,
  height: contentImages.height,
  scale: contentImages.scale,
  widths: contentImages.widths,
};

export function describeMediaImage(row: Parameters<typeof describeContentImage>[0], appUrl: string): ProjectMedia['screenshots'][number] {
  return describeContentImage(row, appUrl);
}

/** The media of one project as stored (no authorisation: callers check it, the store reads public projects). */
export async function readProjectMedia(db: Executor, projectId: string, appUrl: string): Promise<ProjectMedia> {
  const rows = await db
    .select({ role: projectMedia.role, position: projectMedia.position, image: mediaImageColumns })
    .from(projectMedia)
    .innerJoin(contentImages, eq(contentImages.id, projectMedia.imageId))
    .where(eq(projectMedia.projectId, projectId))
    .orderBy(asc(projectMedia.role), asc(projectMedia.position));
  const cover = rows.find((row) => row.role === 'cover');
  return {
    cover: cover ? describeMediaImage(cover.image, appUrl) : null,
    screenshots: rows.filter((row) => row.role === 'screenshot').map((row) => describeMediaImage(row.image, appUrl)),
  };
}

/** GET /projects/{project}/media: whoever may see the project (members; anyone when it is public). */
export async function getProjectMedia(deps: Deps, actor: Actor, projectId: string, appUrl: string): Promise<ProjectMedia> {
  await loadProjectAccess(deps, actor, projectId);
  return readProjectMedia(deps.db, projectId, appUrl);
}

/**
 * PUT /projects/{project}/media {cover, screenshots} (patchProject): replaces both. Every id must be a
 * finalized ('ready') content image of this project: another project's image or an unknown id is
 * not_found ('content image not found', details {id}), one still uploading or refused is not_finalized;
 * screenshots keep their order, a repeat is bad_param (the cover may also be a screenshot). The images
 * set get last_referenced_at = now in the same transaction, so a collection running at that moment
 * re-checks them in its DELETE and keeps them (collect.service.ts); the store's caches hear of the
 * change through project_media's trigger.
 */
export async function putProjectMedia(deps: Deps, actor: Actor, projectId: string, rawInput: unknown, appUrl: string): Promise<ProjectMedia> {
  const input = putProjectMediaInput.parse(rawInput);
  await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    requireAction(access, 'patchProject');
    const ids = [...new Set([...(input.cover ? [input.cover] : []), ...input.screenshots])];
    if (ids.length > 0) {
      // Locked (and their grace period restarted) by the same statement that reads them.
      const found = await tx
        .update(contentImages)
        .set({ lastReferencedAt: new Date() })
        .where(and(eq(contentImages.projectId, projectId), inArray(contentImages.id, ids)))
        .returning({ id: contentImages.id, status: contentImages.status, error: contentImages.error });
      const byId = new Map(found.map((row) => [row.id, row]));
      for (const id of ids) {
        const row = byId.get(id);
        if (!row) throw new AppError('not_found', notFound('content image').message, { id });
        if (row.status === 'uploading') throw new AppError('not_finalized', 'The content image is not finalized yet: finish its upload first', { id });
        if (row.status !== 'ready') throw new AppError('not_finalized', `The content image was refused (${row.error ?? 'not an image'}): upload it again`, { id });
      }
    }
    await tx.delete(projectMedia).where(eq(projectMedia.projectId, projectId));
    const rows = [
      ...(input.cover ? [{ projectId, role: 'cover' as const, position: 0, imageId: input.cover }] : []),
      ...input.screenshots.map((imageId, position) => ({ projectId, role: 'screenshot' as const, position, imageId })),
    ];
    if (rows.length > 0) await tx.insert(projectMedia).values(rows);
  });
  return readProjectMedia(deps.db, projectId, appUrl);
}
