import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { addMember, addStar, createProject, grantPrivilege, makePublic } from '../support/projects.ts';
import { en, message, openDialog, startE2E, visit, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';

/**
 * Spec §2 'projects': the caller's projects with a store icon and their role, the create button only
 * with create_project, the new project dialog. New users get no privilege here (DEFAULT_PRIVILEGES
 * empty), so each test grants what it needs.
 */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E({ DEFAULT_PRIVILEGES: '' });
  // The first user of an instance gets every privilege: take that seat, so later users are ordinary.
  await registerUser(e2e.server);
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

async function creator(): Promise<TestUser> {
  const user = await registerUser(e2e.server);
  await grantPrivilege(e2e.server, user, 'create_project');
  return user;
}

function row(page: Page, title: string) {
  return page.locator('main li.projects_list_item', { has: page.getByRole('link', { name: title, exact: true }) });
}

async function showList(page: Page): Promise<void> {
  await visit(page, '/projects', 'page_projects');
  await page.locator('main .state_loading').waitFor({ state: 'detached', timeout: 10_000 });
}

test('a signed-out visitor is sent to sign in', async () => {
  const { page, context } = await e2e.open();
  await page.goto('/projects', { waitUntil: 'domcontentloaded' });
  await page.waitForURL((url) => url.pathname === '/login', { timeout: 10_000 });
  await context.close();
}, 30_000);

test('empty list text; no create button without create_project', async () => {
  const { page, context } = await e2e.openSignedIn();
  await showList(page);
  expect(await page.title()).toBe(`${en('projects_title')} - Cartridge`);
  expect(await page.locator('main h1').textContent()).toBe(en('projects_title'));
  await page.getByText('You have no projects yet.', { exact: true }).waitFor();
  expect(en('projects_list_empty')).toBe('You have no projects yet.');
  expect(await page.getByRole('button', { name: en('projects_list_new'), exact: true }).count()).toBe(0);
  await context.close();
}, 30_000);

test('create a project through the dialog: lands on its overview, then listed with role owner', async () => {
  const user = await creator();
  const { page, context } = await e2e.openSignedIn({ user });
  await showList(page);
  await page.getByRole('button', { name: en('projects_list_new'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  expect(await dialog.getByRole('heading').first().textContent()).toBe(en('project_new_title'));
  const input = dialog.getByLabel(en('project_new_label'), { exact: true });
  expect(await input.evaluate((element) => element === document.activeElement)).toBe(true);

  // Blank (spaces only) is refused in the dialog, which stays open.
  await input.fill('   ');
  await dialog.getByRole('button', { name: en('project_new_create'), exact: true }).click();
  await dialog.getByRole('alert').getByText(en('dialog_required'), { exact: true }).waitFor();
  expect(await input.getAttribute('aria-invalid')).toBe('true');

  // Cancel closes without creating anything.
  await dialog.getByRole('button', { name: en('dialog_cancel'), exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(await e2e.server.trpc(user.token).projects.mine.query()).toHaveLength(0);

  await page.getByRole('button', { name: en('projects_list_new'), exact: true }).click();
  await openDialog(page).getByLabel(en('project_new_label'), { exact: true }).fill('  Moon Lander  ');
  await openDialog(page).getByRole('button', { name: en('project_new_create'), exact: true }).click();
  await openDialog(page).waitFor({ state: 'detached', timeout: 10_000 });

  const mine = await e2e.server.trpc(user.token).projects.mine.query();
  expect(mine.map((project) => project.title)).toEqual(['Moon Lander']);
  await page.waitForURL((url) => url.pathname === `/projects/${mine[0]!.id}`, { timeout: 10_000 });
  await page.locator('main.page_project_overview h1', { hasText: 'Moon Lander' }).waitFor({ timeout: 10_000 });

  await showList(page);
  const listed = row(page, 'Moon Lander');
  await listed.waitFor();
  expect(await listed.locator('.projects_list_role').textContent()).toContain(en('projects_list_role_owner'));
  expect(await listed.getByRole('link', { name: 'Moon Lander', exact: true }).getAttribute('href')).toBe(`/projects/${mine[0]!.id}`);
  await context.close();
}, 40_000);

/**
 * Where the page's loading state is drawn: the spinner's box, the centre of the spinner with its
 * words (drawn as one), and the centre of the page it sits in.
 */
async function spinnerPlace(page: Page): Promise<{ left: number; right: number; centre: number; pageCentre: number; viewport: number }> {
  const spinner = page.locator('.state_loading .spinner').first();
  await spinner.waitFor({ state: 'visible', timeout: 10_000 });
  return spinner.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const parts = [...element.parentElement!.children].map((child) => child.getBoundingClientRect());
    const frame = (element.closest('.page') ?? document.body).getBoundingClientRect();
    const centre = (Math.min(...parts.map((part) => part.left)) + Math.max(...parts.map((part) => part.right))) / 2;
    return { left: box.left, right: box.right, centre, pageCentre: (frame.left + frame.right) / 2, viewport: window.innerWidth };
  });
}

test('the first paint of a new project: its spinner is whole and centred, while the screen loads and while its data does (issue 29)', async () => {
  const user = await creator();
  for (const viewport of [{ width: 1280, height: 800 }, { width: 375, height: 812 }]) {
    const { page, context } = await e2e.openSignedIn({ user, viewport });
    const where = (stage: string, place: Awaited<ReturnType<typeof spinnerPlace>>) => ({
      viewport: viewport.width,
      stage,
      whole: place.left >= 8 && place.right <= place.viewport - 8,
      centred: Math.abs(place.centre - place.pageCentre) <= 4,
    });
    const expected = (stage: string) => ({ viewport: viewport.width, stage, whole: true, centred: true });
    await showList(page);
    // A first visit loads the screen's code: held, to look at that first paint.
    let releaseCode = () => {};
    const code = new Promise<void>((resolve) => (releaseCode = resolve));
    await page.route(/\/chunk-[a-z0-9]+\.js$/, async (route) => {
      await code;
      await route.continue();
    });
    const title = `Spinner ${viewport.width}`;
    await page.getByRole('button', { name: en('projects_list_new'), exact: true }).click();
    await openDialog(page).getByLabel(en('project_new_label'), { exact: true }).fill(title);
    await openDialog(page).getByRole('button', { name: en('project_new_create'), exact: true }).click();
    expect(where('screen code', await spinnerPlace(page))).toEqual(expected('screen code'));
    releaseCode();
    await page.locator('main.page_project_overview h1', { hasText: title }).waitFor({ timeout: 10_000 });
    await page.unroute(/\/chunk-[a-z0-9]+\.js$/);

    // Opened afresh (a reload, a link from elsewhere): the project's own data, held too.
    let releaseData = () => {};
    const data = new Promise<void>((resolve) => (releaseData = resolve));
    await page.route(/\/trpc\/[^?]*projects\.get/, async (route) => {
      await data;
      await route.continue();
    });
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.locator('main.page_project_overview > .state_loading').waitFor({ timeout: 10_000 });
    expect(where('project data', await spinnerPlace(page))).toEqual(expected('project data'));
    releaseData();
    await page.locator('main.page_project_overview h1', { hasText: title }).waitFor({ timeout: 10_000 });
    await context.close();
  }
}, 60_000);

test('rows: store icon for a public project, each role named (tester, admin, starred)', async () => {
  const owner = await creator();
  const publicProject = await createProject(e2e.server, owner, 'Open Skies');
  await makePublic(e2e.server, publicProject, owner);
  const privateProject = await createProject(e2e.server, owner, 'Hidden Caves');
  const starredProject = await createProject(e2e.server, owner, 'Star Fields');
  await makePublic(e2e.server, starredProject, owner);

  const viewer = await registerUser(e2e.server);
  await addMember(e2e.server, publicProject, viewer, 'tester');
  await addMember(e2e.server, privateProject, viewer, 'admin');
  await addStar(e2e.server, starredProject, viewer);

  const { page, context } = await e2e.openSignedIn({ user: viewer });
  await showList(page);
  await row(page, 'Star Fields').waitFor({ timeout: 10_000 });
  expect(await page.locator('main li.projects_list_item').count()).toBe(3);

  const open = row(page, 'Open Skies');
  const store = open.getByRole('link', { name: en('projects_list_public'), exact: true });
  expect(await store.getAttribute('href')).toBe(`/store/${publicProject.id}`);
  expect(await open.locator('.projects_list_role').textContent()).toContain(en('projects_list_role_tester'));

  const hidden = row(page, 'Hidden Caves');
  expect(await hidden.getByRole('link', { name: en('projects_list_public'), exact: true }).count()).toBe(0);
  expect(await hidden.locator('.projects_list_role').textContent()).toContain(en('projects_list_role_admin'));

  const starred = row(page, 'Star Fields');
  expect(await starred.locator('.projects_list_role').textContent()).toContain(en('projects_list_role_starred'));
  expect(await starred.getByRole('link', { name: en('projects_list_public'), exact: true }).count()).toBe(1);

  // The title leads to the project's overview.
  await hidden.getByRole('link', { name: 'Hidden Caves', exact: true }).click();
  await page.waitForURL((url) => url.pathname === `/projects/${privateProject.id}`);
  await context.close();
}, 40_000);

for (const theme of ['light', 'dark'] as const) {
  test(`axe, ${theme} theme: projects list and the new project dialog`, async () => {
    const owner = await creator();
    const project = await createProject(e2e.server, owner, 'Axe Project');
    await makePublic(e2e.server, project, owner);
    await createProject(e2e.server, owner, 'Second Project');
    const { page, context } = await e2e.openSignedIn({ user: owner, colorScheme: theme, storage: { theme } });
    await showList(page);
    await row(page, 'Axe Project').waitFor();
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe(theme);
    await page.waitForTimeout(150);
    let violations = await seriousAccessibilityViolations(page);
    expect(violations.length, formatViolations(violations, `projects list (${theme})`)).toBe(0);

    await page.getByRole('button', { name: en('projects_list_new'), exact: true }).click();
    await openDialog(page).waitFor();
    await openDialog(page).getByRole('button', { name: en('project_new_create'), exact: true }).click();
    await openDialog(page).getByRole('alert').waitFor();
    await page.waitForTimeout(150);
    violations = await seriousAccessibilityViolations(page);
    expect(violations.length, formatViolations(violations, `new project dialog (${theme})`)).toBe(0);
    await context.close();
  }, 40_000);
}

test('Arabic: the list is right-to-left and translated', async () => {
  const owner = await creator();
  await createProject(e2e.server, owner, 'RTL Project');
  const { page, context } = await e2e.openSignedIn({ user: owner, storage: { lang: 'ar' } });
  await showList(page);
  await row(page, 'RTL Project').waitFor();
  expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  expect(await page.locator('main h1').textContent()).toBe(message('ar', 'projects_title'));
  expect(await row(page, 'RTL Project').locator('.projects_list_role').textContent()).toContain(message('ar', 'projects_list_role_owner'));
  expect(await page.getByRole('button', { name: message('ar', 'projects_list_new'), exact: true }).count()).toBe(1);
  await context.close();
}, 30_000);
