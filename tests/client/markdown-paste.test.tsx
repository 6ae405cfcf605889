import { useDom } from './setup.ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import sharp from 'sharp';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { installImageApis } from './image-apis.ts';

/**
 * Issue 19, spec §4 image paste flow in the markdown editor against the real server: a PNG pasted into
 * the project description gets a temporary reference at the cursor at once, then (converted to JPEG,
 * created, part 0 uploaded, finalized) the image's address, and saving stores it with the description's
 * images list; text pastes as always; a failing part upload says 'failed, retrying' and then succeeds
 * (spec §9: 3 tries, 5 s apart), or says why it failed for good and takes its reference out.
 *
 * happy-dom has no image decoder or canvas: createImageBitmap and OffscreenCanvas are stood in for by
 * sharp, which decodes the pasted file and encodes the JPEG as the browser would (Chromium runs the real
 * ones in tests/e2e/markdown-images.test.ts).
 */
useDom();
// The retry cases wait for spec §9's 5 s pauses.
setDefaultTimeout(180_000);
const { act, cleanup, fireEvent, render, within } = await import('@testing-library/react');
const { App } = await import('../../src/client/app.tsx');
const { until } = await import('./app-harness.tsx');
const { VersionFormDialog } = await import('../../src/client/dialogs/new-version-dialog.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');

let server: TestServer;
let team: Team;
beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
}, 60_000);
afterAll(async () => {
  cleanup();
  await server?.stop();
});

const saved = { fetch: globalThis.fetch };
let imageOrientations: unknown[] = [];
let restoreImageApis = () => {};

/** Which part uploads fail (by try, 1-based, counted over the test) with a 503. */
let failingPartTries = new Set<number>();
let partTries = 0;

beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  imageOrientations = [];
  failingPartTries = new Set();
  partTries = 0;
  restoreImageApis = installImageApis({
    onDecode: (options) => imageOrientations.push(options?.imageOrientation),
    onEncode: (type) => expect(type).toBe('image/jpeg'),
  });
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    if (url.pathname.startsWith('/api/uploads/content-images/') && (init?.method ?? 'GET') === 'PUT') {
      partTries += 1;
      if (failingPartTries.has(partTries)) return new Response('{"code":"unexpected_error","message":"try again"}', { status: 503, headers: { 'content-type': 'application/json' } });
    }
    return saved.fetch(input, init);
  }) as typeof fetch;
});
afterEach(() => {
  restoreImageApis();
  globalThis.fetch = saved.fetch;
});

async function png(width: number, height: number, name: string): Promise<File> {
  const bytes = await sharp({ create: { width, height, channels: 4, background: { r: 200, g: 40, b: 90, alpha: 0.8 } } })
    .png()
    .toBuffer();
  return new File([new Uint8Array(bytes)], name, { type: 'image/png' });
}

/** A clipboard (or drop) carrying files, as a browser's paste event has it. */
function clipboardWith(files: File[], text = ''): DataTransfer {
  return {
    files: Object.assign([...files], { item: (index: number) => files[index] ?? null }) as unknown as FileList,
    types: [...(files.length ? ['Files'] : []), ...(text ? ['text/plain'] : [])],
    getData: (type: string) => (type === 'text/plain' ? text : ''),
    items: [] as unknown as DataTransferItemList,
  } as unknown as DataTransfer;
}

/** Fires a paste on the textarea; true when the page left it to the browser (not prevented). */
function paste(target: HTMLElement, clipboardData: DataTransfer): boolean {
  let notPrevented = true;
  act(() => {
    notPrevented = fireEvent.paste(target, { clipboardData });
  });
  return notPrevented;
}


function openApp(url: string, token: string) {
  cleanup();
  history.replaceState(null, '', url);
  setBearerToken(token);
  return render(<App />);
}

/** Opens the project description in the markdown editor; its textarea and the dialog. */
async function openEditor(): Promise<{ dialog: HTMLElement; text: HTMLTextAreaElement }> {
  openApp(`/projects/${team.project.id}`, team.owner.token);
  let button: HTMLElement | null = null;
  await until(() => {
    button = document.querySelector<HTMLElement>('.project_overview_description .project_overview_section_head button');
    expect(button).not.toBeNull();
  });
  act(() => fireEvent.click(button!));
  let dialog: HTMLElement | null = null;
  await until(() => {
    dialog = document.querySelector<HTMLElement>('dialog[open].markdown_editor_dialog');
    expect(dialog).not.toBeNull();
  });
  const text = within(dialog!).getByLabelText('Text') as HTMLTextAreaElement;
  return { dialog: dialog!, text };
}

function setText(text: HTMLTextAreaElement, value: string, caret = value.length): void {
  act(() => {
    fireEvent.change(text, { target: { value } });
    text.setSelectionRange(caret, caret);
    fireEvent.select(text);
  });
}

async function savedDescription() {
  return server.trpc(team.owner.token).projects.description.get.query({ project: team.project.id });
}

/** The temporary references (object URLs) and the final ones (the images' addresses) in a text. */
const temporary = /!\[([^\]]*)\]\((blob:[^)]+)\)/;
const finalReference = /!\[([^\]]*)\]\(([^)]*\/content-images\/[A-Za-z0-9_-]+\/\d+)\)/;
const all = (text: string, pattern: RegExp) => [...text.matchAll(new RegExp(pattern.source, 'g'))];

describe('pasting images into the markdown editor', () => {
  test('a pasted PNG: a temporary reference at the cursor at once, then the final address; saved with the images list', async () => {
    const { dialog, text } = await openEditor();
    setText(text, 'Before the shot.\n\nAfter the shot.', 'Before the shot.\n\n'.length);
    expect(text.getAttribute('aria-describedby')).toBeTruthy();
    expect(dialog.textContent).toContain('Paste or drop images into the text to add them.');

    const prevented = !paste(text, clipboardWith([await png(640, 360, 'boss fight.png')]));
    expect(prevented).toBe(true);
    // At once: the reference of the temporary preview, where the cursor was, and its status.
    const pastedText = text.value;
    const [reference] = all(pastedText, temporary);
    expect(reference?.[1]).toBe('boss fight');
    expect(pastedText.startsWith(`Before the shot.\n\n![boss fight](blob:`)).toBe(true);
    expect(pastedText.endsWith(')\n\nAfter the shot.')).toBe(true);
    expect(dialog.querySelector('.pasted_image')?.textContent).toMatch(/^boss fight\.png: (preparing the image|uploading)…$/);

    // Then the image's own address replaces it, the preview shows it with its srcset, the status line goes.
    await until(() => expect(text.value).toMatch(finalReference));
    expect(text.value).not.toContain('blob:');
    const [final] = all(text.value, finalReference);
    const url = final![2]!;
    expect(text.value).toBe(`Before the shot.\n\n![boss fight](${url})\n\nAfter the shot.`);
    await until(() => expect(dialog.querySelector('.pasted_image') === null).toBe(true));
    await until(() => expect(dialog.querySelector('.markdown_editor_preview img')?.getAttribute('srcset')).toContain(' 640w'));
    const previewImage = dialog.querySelector('.markdown_editor_preview img')!;
    expect(previewImage.getAttribute('srcset')).toContain('/content-images/');
    expect(previewImage.getAttribute('width')).toBe('640');
    expect(previewImage.getAttribute('height')).toBe('360');
    expect(imageOrientations).toEqual(['from-image']);

    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Save' })));
    await until(() => expect(document.querySelector('dialog[open]') === null).toBe(true));
    const stored = await savedDescription();
    expect(stored.markdown).toBe(text.value);
    expect(stored.images).toHaveLength(1);
    expect(stored.images[0]).toMatchObject({ width: 640, height: 360, scale: 100, url });
    expect(url).toContain(`/content-images/${stored.images[0]!.id}/640`);
    // The page shows it through the same renderer.
    await until(() => expect(document.querySelector('main .markdown_view img')?.getAttribute('srcset')).toBe(`${url.replace(/\/content-images\/.*$/, '')}/content-images/${stored.images[0]!.id}/320 320w, ${url} 640w`));
    expect(document.querySelector('main .markdown_view img')?.getAttribute('loading')).toBe('lazy');
  });

  test('several images at once, made on a 2x screen: each its own paragraph, each finalized, all in the list', async () => {
    const ratio = Object.getOwnPropertyDescriptor(window, 'devicePixelRatio');
    Object.defineProperty(window, 'devicePixelRatio', { configurable: true, value: 2 });
    try {
      const { dialog, text } = await openEditor();
      setText(text, 'Gallery:');
      const files = [await png(400, 300, 'one.png'), await png(300, 400, 'two.png')];
      expect(paste(text, clipboardWith(files))).toBe(false);
      expect(all(text.value, temporary).map((match) => match[1])).toEqual(['one', 'two']);
      expect(text.value).toMatch(/^Gallery:\n\n!\[one\]\(blob:[^)]+\)\n\n!\[two\]\(blob:[^)]+\)$/);
      await until(() => expect(all(text.value, finalReference)).toHaveLength(2));
      await until(() => expect(dialog.querySelectorAll('.pasted_image').length).toBe(0));
      act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Save' })));
      await until(() => expect(document.querySelector('dialog[open]') === null).toBe(true));
      const stored = await savedDescription();
      expect(stored.images.map((image) => [image.width, image.height, image.scale])).toEqual([
        [400, 300, 200],
        [300, 400, 200],
      ]);
      // Shown at half their pixels: made on a 2x screen (spec §9 scale).
      await until(() => expect([...document.querySelectorAll('main .markdown_view img')].map((img) => img.getAttribute('width'))).toEqual(['200', '150']));
    } finally {
      if (ratio) Object.defineProperty(window, 'devicePixelRatio', ratio);
      else delete (window as unknown as Record<string, unknown>).devicePixelRatio;
    }
  });

  test('a dropped image file is taken like a pasted one', async () => {
    const { dialog, text } = await openEditor();
    setText(text, 'Dropped:');
    const transfer = clipboardWith([await png(350, 250, 'dropped.png')]);
    let overAllowed = true;
    let dropNotPrevented = true;
    act(() => {
      overAllowed = !fireEvent.dragOver(text, { dataTransfer: transfer });
      dropNotPrevented = fireEvent.drop(text, { dataTransfer: transfer });
    });
    expect(overAllowed).toBe(true);
    expect(dropNotPrevented).toBe(false);
    expect(text.value).toMatch(/^Dropped:\n\n!\[dropped\]\(blob:/);
    await until(() => expect(text.value).toMatch(finalReference));
    await until(() => expect(dialog.querySelectorAll('.pasted_image').length).toBe(0));
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' })));
  });

  test('text pastes as always: no file, nothing taken; a file that is not an image is left to the browser', async () => {
    const { dialog, text } = await openEditor();
    setText(text, 'typed');
    expect(paste(text, clipboardWith([], 'pasted words'))).toBe(true);
    const notImage = new File(['hello'], 'notes.txt', { type: 'text/plain' });
    expect(paste(text, clipboardWith([notImage]))).toBe(true);
    expect(text.value).toBe('typed');
    expect(dialog.querySelector('.pasted_image') === null).toBe(true);
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' })));
  });

  test("a failing part upload shows 'failed, retrying', then succeeds on the next try (5 s later)", async () => {
    failingPartTries = new Set([1]);
    const { dialog, text } = await openEditor();
    setText(text, '');
    paste(text, clipboardWith([await png(320, 200, 'retry.png')]));
    await until(() => expect(dialog.querySelector('.pasted_image')?.textContent).toBe('retry.png: upload failed, retrying…'));
    expect(dialog.querySelector('.pasted_image')?.getAttribute('data-status')).toBe('retrying');
    // Saving now would store the temporary address: the editor says to wait.
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Save' })));
    expect(within(dialog).getByRole('alert').textContent).toBe('Wait until the images are uploaded, then save.');
    await until(() => expect(text.value).toMatch(finalReference), 15_000);
    expect(partTries).toBe(2);
    await until(() => expect(dialog.querySelector('.pasted_image') === null).toBe(true));
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' })));
  });

  test('an upload failing every try says why in words and takes its reference out; the rest of the text stays', async () => {
    failingPartTries = new Set([1, 2, 3]);
    const { dialog, text } = await openEditor();
    setText(text, 'Keep this.\n\n', 'Keep this.\n\n'.length);
    paste(text, clipboardWith([await png(320, 200, 'lost.png')]));
    expect(text.value).toMatch(temporary);
    await until(() => expect(dialog.querySelector('.pasted_image')?.getAttribute('data-status')).toBe('failed'), 20_000);
    expect(partTries).toBe(3);
    expect(dialog.querySelector('.pasted_image_text')?.textContent).toBe('lost.png could not be added: failed after several tries.');
    expect(text.value).toBe('Keep this.\n\n');
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Dismiss' })));
    expect(dialog.querySelector('.pasted_image') === null).toBe(true);
    setText(text, 'Keep this. Still editable.');
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Save' })));
    await until(() => expect(document.querySelector('dialog[open]') === null).toBe(true));
    expect((await savedDescription()).markdown).toBe('Keep this. Still editable.');
  });

  test('a file the browser cannot read as an image says so', async () => {
    const { dialog, text } = await openEditor();
    setText(text, '');
    const broken = new File([new Uint8Array([1, 2, 3, 4])], 'broken.png', { type: 'image/png' });
    paste(text, clipboardWith([broken]));
    await until(() => expect(dialog.querySelector('.pasted_image_text')?.textContent).toBe('broken.png could not be added: the file is not an image this browser can read.'));
    expect(text.value).toBe('');
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' })));
  });

  test("a version's notes take pasted images too: the address is in the text (a version has no images list)", async () => {
    cleanup();
    setBearerToken(team.owner.token);
    let submitted: { title: string; description: string } | undefined;
    render(<VersionFormDialog title="New version" confirmLabel="Publish" initial={{ title: '1.0', description: 'Notes:' }} projectId={team.project.id} onSubmit={async (values) => void (submitted = values)} onClose={() => {}} />);
    const dialog = document.querySelector<HTMLElement>('dialog[open]')!;
    const notes = within(dialog).getByLabelText('Description') as HTMLTextAreaElement;
    expect(dialog.textContent).toContain('Paste or drop images into the text to add them.');
    setText(notes, 'Notes:');
    expect(paste(notes, clipboardWith([await png(330, 200, 'patch.png')]))).toBe(false);
    expect(notes.value).toMatch(/^Notes:\n\n!\[patch\]\(blob:/);
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Publish' })));
    expect(submitted).toBeUndefined();
    expect(within(dialog).getByRole('alert').textContent).toBe('Wait until the images are uploaded, then save.');
    await until(() => expect(notes.value).toMatch(finalReference));
    const url = all(notes.value, finalReference)[0]![2]!;
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Publish' })));
    await until(() => expect(submitted?.description).toBe(`Notes:\n\n![patch](${url})`));
    // The image is served at every width the renderer's srcset names.
    for (const width of [320, 330]) {
      const response = await saved.fetch(url.replace(/\/330$/, `/${width}`), { headers: { accept: 'image/webp,image/*' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^image\//);
    }
  });
});
