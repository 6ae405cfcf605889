import { useDom } from './setup.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { registerUser } from '../support/accounts.ts';
import { createProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 29: a title longer than its limit is cut by the browser's maxlength without a word; every title
 * field (project, version, branch, package) says so when its value reaches the limit.
 */
useDom();
const { act, cleanup, fireEvent, render, within } = await import('@testing-library/react');
const { openApp, until } = await import('./app-harness.tsx');
const { openDialog: openPackageDialog } = await import('./new-package-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { DialogProvider } = await import('../../src/client/dialogs/dialog-provider.tsx');
const { VersionFormDialog } = await import('../../src/client/dialogs/new-version-dialog.tsx');
const { LanguageProvider, setLanguage } = await import('../../src/client/lib/i18n/index.ts');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());
beforeEach(() => {
  cleanup();
  setBearerToken(null);
  setApiOrigin(server.url);
  setLanguage('en');
});

const note = (max: number) => `Limit reached: at most ${max} characters, the rest is cut off.`;

/** Types `length` characters into the field (as a paste the browser already cut) and reads its limit note. */
function fill(input: HTMLInputElement, length: number): string {
  act(() => void fireEvent.change(input, { target: { value: 'x'.repeat(length) } }));
  return input.closest('.field')!.querySelector('.field_limit')?.textContent ?? 'no note';
}

async function dialogWhere(text: string): Promise<HTMLElement> {
  let found: HTMLElement | undefined;
  await until(() => {
    found = [...document.querySelectorAll<HTMLElement>('dialog[open]')].find((dialog) => dialog.textContent?.includes(text));
    expect(found).toBeDefined();
  });
  return found!;
}

describe('title fields at their limit', () => {
  test('new project (100)', async () => {
    const admin = await registerUser(server);
    openApp('/projects', admin.token);
    let button: HTMLElement | undefined;
    await until(() => {
      button = [...document.querySelectorAll<HTMLElement>('button')].find((item) => item.textContent === 'New project');
      expect(button).toBeDefined();
    });
    act(() => fireEvent.click(button!));
    const dialog = await dialogWhere('Project title');
    const input = within(dialog).getByLabelText('Project title') as HTMLInputElement;
    expect(input.maxLength).toBe(100);
    expect(fill(input, 99)).toBe('');
    expect(fill(input, 100)).toBe(note(100));
  });

  test('branch (64): the prompt says it too', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner, 'Limits');
    openApp(`/projects/${project.id}`, owner.token);
    let button: HTMLElement | undefined;
    await until(() => {
      button = [...document.querySelectorAll<HTMLElement>('button')].find((item) => item.textContent === 'New branch');
      expect(button).toBeDefined();
    });
    act(() => fireEvent.click(button!));
    const dialog = await dialogWhere('Branch title');
    const input = within(dialog).getByLabelText('Branch title') as HTMLInputElement;
    expect(input.maxLength).toBe(64);
    expect(fill(input, 64)).toBe(note(64));
  });

  test('version (64), new or edited', async () => {
    render(
      <LanguageProvider>
        <DialogProvider>
          <VersionFormDialog title="Edit version" confirmLabel="Save" initial={{ title: '1.0.0', description: '' }} onSubmit={async () => {}} onClose={() => {}} />
        </DialogProvider>
      </LanguageProvider>,
    );
    const dialog = await dialogWhere('Edit version');
    const input = within(dialog).getByLabelText('Title') as HTMLInputElement;
    expect(input.maxLength).toBe(64);
    expect(fill(input, 10)).toBe('');
    expect(fill(input, 64)).toBe(note(64));
  });

  test('package', async () => {
    // packageTitleSchema's limit.
    const TITLE_MAX_LENGTH = 128;
    const { dialog } = await openPackageDialog();
    const input = within(dialog).getByLabelText('Title') as HTMLInputElement;
    expect(input.maxLength).toBe(TITLE_MAX_LENGTH);
    expect(fill(input, TITLE_MAX_LENGTH - 1)).toBe('');
    expect(fill(input, TITLE_MAX_LENGTH)).toBe(note(TITLE_MAX_LENGTH));
  });
});
