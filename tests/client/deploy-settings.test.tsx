import { useDom } from './setup.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { itchAccount, itchKey } from '../api/deploys-support.ts';
import { startFakeItchApi, type FakeItchApi } from '../support/fake-itch/api.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 18, the web client's deploy settings: /me's deploy credentials (add dialog with the §5 key rule and
 * itch.io's refusals in words, delete naming the deploy sites that go with it) and the manage page's deploy
 * sites (add from the credential's available sites or by address, delete, hidden actions for roles that may
 * not). The real server answers, with the fake itch.io API behind ITCH_API_URL.
 */
useDom();
// Each test drives whole screens against the real server (itch.io checks included): more than the default 5 s on a busy machine.
setDefaultTimeout(180_000);
const { act, cleanup, fireEvent, within } = await import('@testing-library/react');
const { openApp, until: untilPasses } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

let server: TestServer;
let itch: FakeItchApi;
let team: Team;
const goodKey = itchKey();

beforeAll(async () => {
  itch = startFakeItchApi({ keys: {} });
  server = await startTestServer({ ITCH_API_URL: itch.url });
  team = await makeTeam(server);
  itch.setKey(goodKey, itchAccount('teamdev', ['game', 'other']));
}, 60_000);
afterAll(async () => {
  cleanup();
  await server.stop();
  await itch.stop();
});
beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  setLanguage('en');
});



/** The section of a page by its heading. */
async function section(name: string): Promise<HTMLElement> {
  let found: HTMLElement | undefined;
  await until(() => {
    found = [...document.querySelectorAll('section > h2')].find((heading) => heading.textContent === name)?.closest('section') ?? undefined;
    expect(found).toBeDefined();
  });
  return found!;
}

const until = (check: () => void, timeout = 15_000) => untilPasses(check, timeout);
/**
 * The section once `check` passes on it, looked up again at every try: the list's refetch after a change
 * may render the section anew, and an element kept from before would never show the change.
 */
async function sectionWhere(name: string, check: (section: HTMLElement) => void): Promise<HTMLElement> {
  let found: HTMLElement | undefined;
  await until(() => {
    found = [...document.querySelectorAll('section > h2')].find((heading) => heading.textContent === name)?.closest('section') ?? undefined;
    expect(found).toBeDefined();
    check(found!);
  });
  return found!;
}
const siteCount = (count: number) => (section: HTMLElement) => expect(section.querySelectorAll('li.deploy_site_item')).toHaveLength(count);
const someSite = (section: HTMLElement) => expect(section.querySelector('li.deploy_site_item')).not.toBeNull();
/** The element matching a selector once it is there. */
async function appeared(root: ParentNode, selector: string): Promise<HTMLElement> {
  let found: HTMLElement | null = null;
  await until(() => {
    found = root.querySelector<HTMLElement>(selector);
    expect(found).not.toBeNull();
  });
  return found!;
}
/** Every dialog gone (a plain selector: role queries over the whole page are slow in happy-dom on a busy machine). */
const dialogClosed = () => until(() => expect(document.querySelectorAll('dialog').length).toBe(0));
const typeInto = (input: HTMLElement, value: string) => act(() => fireEvent.change(input, { target: { value } }));
const click = (element: HTMLElement) => act(() => fireEvent.click(element));

async function openAddCredential() {
  const deploy = await section('Deploy credentials');
  click(within(deploy).getByRole('button', { name: 'Add deploy credential' }));
  const dialog = await appeared(document, 'dialog');
  expect(within(dialog).getByRole('heading').textContent).toBe('Add deploy credential');
  return dialog;
}

describe('deploy credentials on /me', () => {
  test('Add stays disabled until the key is exactly 40 letters and digits; the key field is a password field', async () => {
    openApp('/me', team.owner.token);
    const dialog = await openAddCredential();
    const add = within(dialog).getByRole('button', { name: 'Add' }) as HTMLButtonElement;
    const key = within(dialog).getByLabelText('API key') as HTMLInputElement;
    expect(key.type).toBe('password');
    expect(within(dialog).getByLabelText('Title').getAttribute('placeholder')).toBe('Key 1');
    expect(add.disabled).toBe(true);
    typeInto(key, 'a'.repeat(39));
    expect(add.disabled).toBe(true);
    expect(within(dialog).getByText(/exactly 40 letters and digits; this one has 39 characters/)).toBeTruthy();
    typeInto(key, `${'a'.repeat(39)}!`);
    expect(add.disabled).toBe(true);
    typeInto(key, 'a'.repeat(40));
    expect(add.disabled).toBe(false);
    // The key never shows in the markup (no value attribute).
    expect(document.body.innerHTML).not.toContain('a'.repeat(40));
    // Steam is offered with the reason it is refused, and Add cannot be used for it.
    click(within(dialog).getByRole('radio', { name: 'Steam' }));
    expect(within(dialog).getByText(/Steam is not supported: .*steamcmd/)).toBeTruthy();
    expect(add.disabled).toBe(true);
    click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await dialogClosed();
  });

  test("itch.io's refusals are shown in words, with the API keys page; a good key is added as 'Key 1'", async () => {
    openApp('/me', team.owner.token);
    let dialog = await openAddCredential();
    // A key the fake does not know: itch.io answers 401.
    typeInto(within(dialog).getByLabelText('API key'), itchKey());
    click(within(dialog).getByRole('button', { name: 'Add' }));
    const refused = await appeared(dialog, '[role="alert"]');
    expect(refused.textContent).toContain('itch.io refused this key. Copy it again from your itch.io API keys page.');
    expect(within(refused).getByRole('link', { name: 'itch.io API keys page' }).getAttribute('href')).toBe('https://itch.io/user/settings/api-keys');
    // A key made by itch.io sign-in: only the profile scope.
    const profileKey = itchKey();
    itch.setKey(profileKey, itchAccount('someone', ['game'], { scopes: ['profile:me'], oauth_application_id: 1 }));
    typeInto(within(dialog).getByLabelText('API key'), profileKey);
    click(within(dialog).getByRole('button', { name: 'Add' }));
    await until(() => expect(dialog.querySelector('[role="alert"]')?.textContent).toContain('This key cannot push builds'));
    expect(within(within(dialog).getByRole('alert')).getByRole('link').getAttribute('href')).toBe('https://itch.io/user/settings/api-keys');
    // A settings key is accepted.
    typeInto(within(dialog).getByLabelText('API key'), goodKey);
    click(within(dialog).getByRole('button', { name: 'Add' }));
    await dialogClosed();
    const deploy = await section('Deploy credentials');
    const row = await appeared(deploy, 'li.deploy_credential_item');
    expect(row.querySelector('.item_title')?.textContent).toBe('Key 1');
    expect(within(row).getByText('itch.io')).toBeTruthy();
    expect(within(row).getByText('No deploy site uses it.')).toBeTruthy();
    expect(document.body.innerHTML).not.toContain(goodKey);
    dialog = await openAddCredential();
    expect(within(dialog).getByLabelText('Title').getAttribute('placeholder')).toBe('Key 2');
    click(within(dialog).getByRole('button', { name: 'Cancel' }));
  });
});

describe('deploy sites on the manage page', () => {
  const managePath = () => `/projects/${team.project.id}/manage`;

  async function openAddSite() {
    const sites = await section('Deploy sites');
    click(within(sites).getByRole('button', { name: 'Add deploy site' }));
    const dialog = await appeared(document, 'dialog');
    expect(within(dialog).getByRole('heading').textContent).toBe('Add deploy site');
    return dialog;
  }

  test('the owner adds a site from the available list and one by address', async () => {
    openApp(managePath(), team.owner.token);
    let dialog = await openAddSite();
    const add = within(dialog).getByRole('button', { name: 'Add' }) as HTMLButtonElement;
    const select = (await appeared(dialog, 'select[name="credential"]')) as HTMLSelectElement;
    expect(select.selectedOptions[0]?.textContent).toBe('Key 1 (itch.io)');
    expect(within(dialog).getByLabelText('Deploy credential')).toBe(select);
    await appeared(dialog, 'input[type="radio"][value="teamdev/game"]');
    const game = within(dialog).getByRole('radio', { name: /Game game/ });
    expect(within(dialog).getByRole('radio', { name: /Game other/ })).toBeTruthy();
    expect(game.closest('label')?.querySelector('img')?.getAttribute('src')).toBe('https://img.itch.zone/game.png');
    // A cover itch.io's image host cannot give: an empty frame in its place, never the broken-image glyph (issue 29).
    act(() => void fireEvent.error(game.closest('label')!.querySelector('img')!));
    expect(game.closest('label')?.querySelector('img')).toBeNull();
    expect(game.closest('label')?.querySelector('span.deploy_available_picture[aria-hidden="true"]')).not.toBeNull();
    expect(add.disabled).toBe(true);
    click(game);
    expect(add.disabled).toBe(false);
    click(add);
    await dialogClosed();
    let sites = await sectionWhere('Deploy sites', someSite);
    const first = sites.querySelector<HTMLElement>('li.deploy_site_item')!;
    expect(first.querySelector('.item_title')?.textContent).toBe('teamdev/game');
    expect(first.textContent).toContain('Deploy credential Key 1 (');

    dialog = await openAddSite();
    const addAgain = within(dialog).getByRole('button', { name: 'Add' }) as HTMLButtonElement;
    await appeared(dialog, 'input[type="radio"][value="teamdev/game"]');
    click(within(dialog).getByRole('radio', { name: 'Type an address' }));
    const address = within(dialog).getByLabelText('Address');
    typeInto(address, 'https://itch.io/nope');
    expect(within(dialog).getByText('Not an itch.io game address: type developer.itch.io/game or developer/game.')).toBeTruthy();
    expect(address.getAttribute('aria-invalid')).toBe('true');
    expect(addAgain.disabled).toBe(true);
    typeInto(address, 'https://TeamDev.itch.io/Second/');
    expect(addAgain.disabled).toBe(false);
    click(addAgain);
    await dialogClosed();
    sites = await sectionWhere('Deploy sites', siteCount(2));
    expect([...sites.querySelectorAll('li .item_title')].map((item) => item.textContent)).toEqual(['teamdev/game', 'teamdev/second']);
    // The same site again: the server's refusal stays in the dialog.
    dialog = await openAddSite();
    click(await appeared(dialog, 'input[type="radio"][value="teamdev/game"]'));
    click(within(dialog).getByRole('button', { name: 'Add' }));
    expect((await appeared(dialog, '[role="alert"]')).textContent).toMatch(/^Error: /);
    click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await dialogClosed();
  });

  test('a developer sees the sites but neither Add nor Delete', async () => {
    openApp(managePath(), team.developer.token);
    const sites = await sectionWhere('Deploy sites', someSite);
    expect(within(sites).queryByRole('button', { name: 'Add deploy site' })).toBeNull();
    expect(within(sites).queryByRole('button', { name: /Delete/ })).toBeNull();
  });

  test('the owner deletes a site after a danger confirmation naming it', async () => {
    openApp(managePath(), team.owner.token);
    const sites = await sectionWhere('Deploy sites', siteCount(2));
    click(within(sites).getByRole('button', { name: 'Delete: teamdev/second' }));
    const confirm = await appeared(document, 'dialog');
    expect(confirm.textContent).toContain('Delete deploy site?');
    expect(confirm.textContent).toContain('Versions of this project can no longer be deployed to teamdev/second.');
    expect(confirm.className).toContain('dialog_danger');
    click(within(confirm).getByRole('button', { name: 'Delete' }));
    await sectionWhere('Deploy sites', siteCount(1));
    const listed = await server.trpc(team.owner.token).deploys.sites.list.query({ project: team.project.id });
    expect(listed.map((site) => site.site)).toEqual(['teamdev/game']);
  });
});

describe('deleting a deploy credential', () => {
  test('the confirmation names the deploy sites that go with it; they are gone afterwards', async () => {
    openApp('/me', team.owner.token);
    const deploy = await section('Deploy credentials');
    const row = await appeared(deploy, 'li.deploy_credential_item');
    expect(row.textContent).toContain(`teamdev/game in ${team.project.title}`);
    click(within(row).getByRole('button', { name: 'Delete: Key 1' }));
    const confirm = await appeared(document, 'dialog');
    expect(confirm.textContent).toContain('Delete deploy credential?');
    expect(confirm.textContent).toContain('The deploy credential Key 1 will be deleted.');
    expect(confirm.textContent).toContain('These deploy sites use it and will be deleted with it:');
    expect(confirm.textContent).toContain(`teamdev/game in ${team.project.title}`);
    expect(confirm.className).toContain('dialog_danger');
    click(within(confirm).getByRole('button', { name: 'Delete' }));
    await until(() => expect(deploy.textContent).toContain('No deploy credentials yet.'));
    expect(await server.trpc(team.owner.token).deploys.sites.list.query({ project: team.project.id })).toEqual([]);
  });
});
