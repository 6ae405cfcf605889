import { and, eq, inArray } from 'drizzle-orm';
import { parseContentImagePath } from '../../../shared/schemas/content-images.ts';
import type { Description } from '../../../shared/schemas/projects.ts';
import type { Executor } from '../../db/client.ts';
import { contentImages } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';

/**
 * A description's images list, checked against what the server knows: every entry names a finalized
 * content image of this project, by a URL of one of its sizes; its width, height and scale are the
 * image's own (a client cannot make the page reserve a wrong size). The first wrong entry refuses the
 * save (details.index), nothing is stored.
 */
export async function checkDescriptionImages(db: Executor, projectId: string, images: Description['images']): Promise<Description['images']> {
  if (images.length === 0) return images;
  const rows = await db
    .select({ id: contentImages.id, width: contentImages.width, height: contentImages.height, scale: contentImages.scale, widths: contentImages.widths })
    .from(contentImages)
    .where(and(eq(contentImages.projectId, projectId), eq(contentImages.status, 'ready'), inArray(contentImages.id, [...new Set(images.map((image) => image.id))])));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return images.map((image, index) => {
    const row = byId.get(image.id);
    if (!row || row.width === null || row.height === null) throw new AppError('not_found', 'content image not found', { field: 'images', index, id: image.id });
    let path: string;
    try {
      path = new URL(image.url, 'http://relative.invalid').pathname;
    } catch {
      path = '';
    }
    const named = parseContentImagePath(path);
    if (!named || named.id !== image.id || !row.widths.includes(named.width)) {
      throw new AppError('bad_param', 'Invalid `images`: the url is not a size of that image', { field: 'images', index });
    }
    return { id: image.id, url: image.url, width: row.width, height: row.height, scale: row.scale };
  });
}
