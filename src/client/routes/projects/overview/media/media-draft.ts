import type { ProjectMedia, PutProjectMediaInput } from '../../../../../shared/schemas/project-media.ts';

/**
 * The cover and screenshots being edited on the overview page (issue 19), without React: each place is
 * a slot holding a finalized image, or an upload on its way (its preview and status). The server gets
 * the images only, in order (toPutInput).
 */

export type MediaImage = ProjectMedia['screenshots'][number];

type UploadStatus = 'converting' | 'uploading' | 'retrying';

/** An image on its way: the file's name, a preview of the picked file (object URL), where it is. */
export type SlotUpload = { name: string; preview: string; status: UploadStatus };

export type Slot = { key: string; image?: MediaImage; upload?: SlotUpload };

export type MediaDraft = { cover: Slot | null; screenshots: Slot[] };

let counter = 0;
export const newSlotKey = (): string => `media-${++counter}`;

export function draftOf(media: ProjectMedia): MediaDraft {
  return {
    cover: media.cover ? { key: newSlotKey(), image: media.cover } : null,
    screenshots: media.screenshots.map((image) => ({ key: newSlotKey(), image })),
  };
}

/** What PUT .../media saves: the finalized images, screenshots in their order, no repeats. */
export function toPutInput(draft: MediaDraft): PutProjectMediaInput {
  const seen = new Set<string>();
  const screenshots: string[] = [];
  for (const slot of draft.screenshots) {
    if (!slot.image || seen.has(slot.image.id)) continue;
    seen.add(slot.image.id);
    screenshots.push(slot.image.id);
  }
  return { cover: draft.cover?.image?.id ?? null, screenshots };
}

/** The screenshot `key` moved by `step` places (−1 earlier, +1 later), kept inside the list. */
export function moveScreenshot(draft: MediaDraft, key: string, step: number): MediaDraft {
  const from = draft.screenshots.findIndex((slot) => slot.key === key);
  const to = from + step;
  if (from < 0 || to < 0 || to >= draft.screenshots.length) return draft;
  const screenshots = [...draft.screenshots];
  const [moved] = screenshots.splice(from, 1);
  screenshots.splice(to, 0, moved!);
  return { ...draft, screenshots };
}

export function removeScreenshot(draft: MediaDraft, key: string): MediaDraft {
  return { ...draft, screenshots: draft.screenshots.filter((slot) => slot.key !== key) };
}

/** The screenshot's image becomes the cover too (it stays among the screenshots). */
export function coverFromScreenshot(draft: MediaDraft, key: string): MediaDraft {
  const image = draft.screenshots.find((slot) => slot.key === key)?.image;
  return image ? { ...draft, cover: { key: newSlotKey(), image } } : draft;
}

/** Changes the slot `key` wherever it is (cover or screenshot); null takes it out. */
export function updateSlot(draft: MediaDraft, key: string, change: Partial<Slot> | null): MediaDraft {
  const apply = (slot: Slot): Slot | null => (slot.key !== key ? slot : change === null ? null : { ...slot, ...change });
  return {
    cover: draft.cover ? apply(draft.cover) : null,
    screenshots: draft.screenshots.map(apply).filter((slot): slot is Slot => slot !== null),
  };
}

/** Whether two drafts save the same thing (a change that only moves an upload's status saves nothing). */
export function sameSaved(a: MediaDraft, b: MediaDraft): boolean {
  const x = toPutInput(a);
  const y = toPutInput(b);
  return x.cover === y.cover && x.screenshots.length === y.screenshots.length && x.screenshots.every((id, index) => id === y.screenshots[index]);
}
