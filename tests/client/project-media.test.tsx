import { useDom } from './setup.ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { installImageApis, pngFile } from './image-apis.ts';

/**
 * The overview's cover and screenshots (issue 19) against the real server: files picked or dropped go
 * up through the paste flow's code (JPEG in the browser, create, part 0, finalize) and are saved at once
 * with PUT .../media; screenshots are reordered with buttons (focus kept), removed, made the cover; the
 * state of each upload and every failure is said in words (a part that fails once: 'retrying', spec
 * §9's 5 s pause; a file that is no image; more than 12); a failed save says so and Retry saves;
 * members without patchProject only see the pictures.
 */
useDom();
setDefaultTimeout(240_000);
const { act, cleanup, fireEvent, render, within } = await import('@testing-library/react');
const { App } = await import('../../src/client/app.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { until } = await import('./app-harness.tsx');

let server: TestServer;
let team: Team;
const realFetch = globalThis.fetch;
let restoreImageApis = () => {};
/** Part uploads (PUT /api/uploads/content-images/…) to answer 503, by try (1-based, counted over the test). */
let failingPartTries = new Set<number>();
let partTries = 0;
/** While true, the media save (projects.media.put) answers 500. */
let failSave = false;

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server, 'ada_dev');
}, 60_000);
afterAll(async () => {
  cleanup();
  await server?.stop();
});
beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  restoreImageApis = installImageApis();
  failingPartTries = new Set();
  partTries = 0;
  failSave = false;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    if (url.pathname.startsWith('/api/uploads/content-images/') && (init?.method ?? 'GET') === 'PUT') {
      partTries += 1;
      if (failingPartTries.has(partTries)) return new Response('{"code":"unexpected_error","message":"try again"}', { status: 503, headers: { 'content-type': 'application/json' } });
    }
    if (failSave && url.pathname.includes('projects.media.put')) {
      return new Response(JSON.stringify([{ error: { message: 'down', code: -32603, data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 } } }]), { status: 500, headers: { 'content-type': 'application/json' } });
    }
    return realFetch(input, init);
  }) as typeof fetch;
});
afterEach(async () => {
  cleanup();
  restoreImageApis();
  globalThis.fetch = realFetch;
  // A clean slate for the next test.
  await server.trpc(team.owner.token).projects.media.put.mutate({ project: team.project.id, cover: null, screenshots: [] });
});


async function openOverview(token: string): Promise<HTMLElement> {
  cleanup();
  history.replaceState(null, '', `/projects/${team.project.id}`);
  setBearerToken(token);
  render(<App />);
  let section: HTMLElement | null = null;
  await until(() => {
    section = document.querySelector<HTMLElement>('section.project_media');
    expect(section?.querySelector('.project_media_editor, .project_media_view') ?? null).not.toBeNull();
  });
  return section!;
}

const saved = () => server.trpc(team.owner.token).projects.media.get.query({ project: team.project.id });
const coverArea = (section: HTMLElement) => section.querySelector<HTMLElement>('.project_media_cover')!;
const shotsArea = (section: HTMLElement) => section.querySelector<HTMLElement>('.project_media_screenshots')!;
const tiles = (section: HTMLElement) => [...section.querySelectorAll<HTMLElement>('.project_media_screenshots .project_media_tile')];
/** The tiles' image ids in order ('' for an upload still on its way). */
const tileIds = (section: HTMLElement): string[] => tiles(section).map((tile) => tile.getAttribute('data-image-id') ?? '');
const statusText = (section: HTMLElement) => section.querySelector('.project_media_status')?.textContent ?? '';

function pick(section: HTMLElement, which: 'cover' | 'screenshots', files: File[]) {
  const input = section.querySelector<HTMLInputElement>(`[data-testid="project-media-${which}-input"]`)!;
  act(() => void fireEvent.change(input, { target: { files } }));
}

function drop(target: HTMLElement, files: File[]) {
  const dataTransfer = { files, types: ['Files'], dropEffect: 'none' };
  act(() => {
    fireEvent.dragEnter(target, { dataTransfer });
    fireEvent.dragOver(target, { dataTransfer });
  });
  expect(target.hasAttribute('data-dragging')).toBe(true);
  act(() => void fireEvent.drop(target, { dataTransfer }));
  expect(target.hasAttribute('data-dragging')).toBe(false);
}

describe('an owner sets the pictures', () => {
  test('a picked cover: converting and uploading in words, then shown with its srcset and saved', async () => {
    const section = await openOverview(team.owner.token);
    expect(within(section).getByRole('heading', { level: 2 }).textContent).toBe('Cover and screenshots');
    expect(coverArea(section).textContent).toContain('No cover yet.');
    pick(section, 'cover', [await pngFile(1600, 900, 'key art.png')]);
    // At once: the picked picture and what happens to it.
    expect(coverArea(section).querySelector('.project_media_upload_text')?.textContent).toMatch(/^key art\.png: (preparing the image|uploading)…$/);
    await until(() => expect(coverArea(section).querySelector('img.project_media_cover_image')).not.toBeNull());
    const img = coverArea(section).querySelector('img.project_media_cover_image')!;
    expect(img.getAttribute('alt')).toBe(`Cover of ${team.project.title}`);
    expect([img.getAttribute('width'), img.getAttribute('height')]).toEqual(['1600', '900']);
    expect(img.getAttribute('srcset')).toMatch(/^\S+\/content-images\/[A-Za-z0-9_-]+\/320 320w, .* \S+\/1600 1600w$/);
    await until(() => expect(statusText(section)).toBe('Saved.'));
    const media = await saved();
    expect(media.cover?.width).toBe(1600);
    expect(img.getAttribute('src')).toBe(media.cover!.url);
    expect(media.screenshots).toEqual([]);
    // Replace and remove.
    expect(within(coverArea(section)).getByRole('button', { name: 'Replace the cover' })).toBeTruthy();
    act(() => void fireEvent.click(within(coverArea(section)).getByRole('button', { name: 'Remove the cover' })));
    await until(async () => expect((await saved()).cover).toBeNull());
    expect(coverArea(section).textContent).toContain('No cover yet.');
    expect(statusText(section)).toContain('Cover removed.');
    // Focus went to the button that picks a cover again.
    expect(document.activeElement?.textContent).toBe('Choose a cover');
  });

  test('dropped screenshots keep their order; reorder by buttons keeps the focus; use as cover; remove', async () => {
    const section = await openOverview(team.owner.token);
    const files = await Promise.all([1, 2, 3].map((n) => pngFile(640, 360, `shot ${n}.png`, { r: n * 60, g: 80, b: 120 })));
    drop(shotsArea(section), files);
    expect(tiles(section)).toHaveLength(3);
    await until(() => expect(tileIds(section).every((id) => id !== '')).toBe(true));
    await until(async () => expect((await saved()).screenshots.map((image) => image.id)).toEqual(tileIds(section)));
    const [one, two, three] = tileIds(section) as [string, string, string];
    expect(shotsArea(section).textContent).toContain('3 of 12');
    // Each tile is a group named by its place.
    expect(within(section).getByRole('group', { name: 'Screenshot 1 of 3' })).toBeTruthy();

    // The first one later: moved, saved, announced; the focus stays on its button.
    const first = within(section).getByRole('group', { name: 'Screenshot 1 of 3' });
    expect(within(first).getByRole('button', { name: 'Move earlier' }).getAttribute('aria-disabled')).toBe('true');
    act(() => void fireEvent.click(within(first).getByRole('button', { name: 'Move later' })));
    expect(tileIds(section)).toEqual([two, one, three]);
    expect((document.activeElement as HTMLElement).getAttribute('data-move')).toBe('later');
    expect(document.activeElement?.closest('.project_media_tile')?.getAttribute('data-image-id')).toBe(one!);
    expect(statusText(section)).toContain('Moved to position 2 of 3.');
    // Clicking 'earlier' on the first place does nothing.
    act(() => void fireEvent.click(within(within(section).getByRole('group', { name: 'Screenshot 1 of 3' })).getByRole('button', { name: 'Move earlier' })));
    expect(tileIds(section)).toEqual([two, one, three]);
    await until(async () => expect((await saved()).screenshots.map((image) => image.id)).toEqual([two, one, three]));

    // The third as the cover: it stays a screenshot and wears the badge.
    const third = within(section).getByRole('group', { name: 'Screenshot 3 of 3' });
    act(() => void fireEvent.click(within(third).getByRole('button', { name: 'Use as cover' })));
    expect(third.querySelector('.project_media_cover_badge')?.textContent).toBe('Cover');
    expect(within(third).getByRole('button', { name: 'Use as cover' }).getAttribute('aria-disabled')).toBe('true');
    await until(async () => expect((await saved()).cover?.id).toBe(three!));
    expect(coverArea(section).querySelector('img')?.getAttribute('src')).toContain(`/content-images/${three}/`);

    // Remove the middle one: the focus goes to its neighbour's Remove.
    act(() => void fireEvent.click(within(within(section).getByRole('group', { name: 'Screenshot 2 of 3' })).getByRole('button', { name: 'Remove' })));
    expect(tileIds(section)).toEqual([two, three]);
    expect(document.activeElement?.closest('.project_media_tile')?.getAttribute('data-image-id')).toBe(three!);
    expect(statusText(section)).toContain('Screenshot removed.');
    await until(async () => expect((await saved()).screenshots.map((image) => image.id)).toEqual([two, three]));
    await until(() => expect(statusText(section)).toContain('Saved.'));
  });

  test('a part that fails once says it is retrying, then the screenshot is in (spec §9: 5 s later)', async () => {
    failingPartTries = new Set([1]);
    const section = await openOverview(team.owner.token);
    pick(section, 'screenshots', [await pngFile(320, 200, 'flaky.png')]);
    await until(() => expect(shotsArea(section).querySelector('.project_media_upload_text')?.textContent).toBe('flaky.png: upload failed, retrying…'));
    await until(() => expect(tileIds(section)[0] ?? '').not.toBe(''));
    expect(partTries).toBe(2);
    await until(async () => expect((await saved()).screenshots).toHaveLength(1));
  });

  test('what cannot be added is said in words: not an image, more than 12', async () => {
    const section = await openOverview(team.owner.token);
    const text = new File(['hello'], 'notes.txt', { type: 'text/plain' });
    const broken = new File([new Uint8Array([1, 2, 3])], 'broken.png', { type: 'image/png' });
    pick(section, 'screenshots', [text, broken]);
    const failures = () => [...section.querySelectorAll('.project_media_failures li')].map((item) => item.querySelector('.pasted_image_text')?.textContent);
    await until(() => expect(failures()).toEqual(['notes.txt could not be added: the file is not an image this browser can read.', 'broken.png could not be added: the file is not an image this browser can read.']));
    expect(tiles(section)).toHaveLength(0);
    // Dismissed one by one.
    act(() => void fireEvent.click(within(section.querySelector('.project_media_failures')!).getAllByRole('button', { name: 'Dismiss' })[0]!));
    expect(failures()).toHaveLength(1);

    const many = await Promise.all(Array.from({ length: 13 }, (_, n) => pngFile(64, 36, `s${n}.png`, { r: n * 15, g: 20, b: 30 })));
    pick(section, 'screenshots', many);
    expect(tiles(section)).toHaveLength(12);
    expect(failures()).toContain('At most 12 screenshots: the other files were not added.');
    await until(() => expect(tileIds(section).every((id) => id !== '')).toBe(true));
    await until(async () => expect((await saved()).screenshots).toHaveLength(12));
    // Full: no more picking, the hint says why.
    expect(within(shotsArea(section)).queryByRole('button', { name: 'Add screenshots' })).toBeNull();
    expect(shotsArea(section).textContent).toContain('The gallery is full (12 screenshots): remove one to add another.');
  });

  test('a failed save says so; Retry saves', async () => {
    const section = await openOverview(team.owner.token);
    failSave = true;
    pick(section, 'cover', [await pngFile(400, 300, 'cover.png')]);
    await until(() => expect(section.querySelector('.project_media_save_failed')?.textContent).toMatch(/^Not saved: .+Retry$/));
    expect((await saved()).cover).toBeNull();
    failSave = false;
    act(() => void fireEvent.click(within(section.querySelector<HTMLElement>('.project_media_save_failed')!).getByRole('button', { name: 'Retry' })));
    await until(async () => expect((await saved()).cover?.width).toBe(400));
    await until(() => expect(statusText(section)).toBe('Saved.'));
    expect(section.querySelector('.project_media_save_failed')).toBeNull();
  });
});

describe('members without patchProject', () => {
  test('a tester sees the pictures, without any control; with none, no section', async () => {
    let section = await openOverview(team.owner.token);
    pick(section, 'cover', [await pngFile(800, 450, 'cover.png')]);
    pick(section, 'screenshots', [await pngFile(320, 180, 'one.png')]);
    await until(async () => {
      const media = await saved();
      expect([media.cover !== null, media.screenshots.length]).toEqual([true, 1]);
    });
    section = await openOverview(team.tester.token);
    expect(section.querySelector('.project_media_view img.project_media_cover_image')).not.toBeNull();
    expect(section.querySelectorAll('.project_media_view .project_media_tile img')).toHaveLength(1);
    expect(within(section).queryAllByRole('button')).toHaveLength(0);
    expect(section.querySelector('input[type="file"]')).toBeNull();

    await server.trpc(team.owner.token).projects.media.put.mutate({ project: team.project.id, cover: null, screenshots: [] });
    cleanup();
    history.replaceState(null, '', `/projects/${team.project.id}`);
    setBearerToken(team.tester.token);
    render(<App />);
    await until(() => expect(document.querySelector('section.project_overview_description')).not.toBeNull());
    await act(() => new Promise<void>((resolve) => setTimeout(resolve, 300)));
    expect(document.querySelector('section.project_media')).toBeNull();
  });
});
