import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import type { TestUser } from '../support/accounts.ts';
import { registerUser } from '../support/accounts.ts';
import { addMember, createProject, makePublic, makeTeam, type TestProject } from '../support/projects.ts';
import { uploadContentImage } from '../support/content-images.ts';
import { photoLike } from '../support/images.ts';
import { en, message, openDialog, section, startE2E, visit, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';

/** Spec §2 'projects/{project}': description (markdown, sanitised, editable), store link, branches, settings link. */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

async function showOverview(page: Page, project: TestProject): Promise<void> {
  await visit(page, `/projects/${project.id}`, 'page_project_overview');
  await page.locator('main h1', { hasText: project.title }).waitFor({ timeout: 10_000 });
  await page.locator('main .with_sidebar_main .state_loading').first().waitFor({ state: 'detached', timeout: 10_000 });
}

type DescriptionImage = { id: string; width: number; height: number; scale: number; url: string };

async function putDescription(owner: TestUser, project: TestProject, markdown: string, images: DescriptionImage[] = []): Promise<void> {
  const response = await e2e.server.fetch(`/api/projects/${project.id}/description`, { method: 'PUT', token: owner.token, json: { markdown, lang: null, images } });
  expect(response.status).toBe(200);
}

async function createBranch(owner: TestUser, project: TestProject, title: string, isPublic = false): Promise<string> {
  const api = e2e.server.trpc(owner.token);
  const branch = await api.projects.branches.create.mutate({ project: project.id, title });
  if (isPublic) await api.projects.branches.patch.mutate({ project: project.id, branch: branch.id, isPublic: true });
  return branch.id;
}

async function publishVersion(owner: TestUser, project: TestProject, branch: string, title: string): Promise<string> {
  const api = e2e.server.trpc(owner.token);
  const version = await api.projects.versions.create.mutate({ project: project.id, title, description: '', packages: [] });
  await api.projects.versions.publish.mutate({ project: project.id, version: version.id, branch });
  return version.id;
}

test('the owner edits the description in the markdown editor; rendered and persisted', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: owner });
  await showOverview(page, project);
  expect(await page.title()).toBe(`${project.title} - Cartridge`);
  expect(await page.locator('[data-testid="project-role"]').textContent()).toBe(en('projects_list_role_owner'));
  const description = section(page, 'project_overview_description');
  await description.getByText(en('project_overview_description_empty'), { exact: true }).waitFor();

  await description.getByRole('button', { name: en('project_overview_edit_description'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  const text = dialog.getByLabel(en('markdown_editor_label'), { exact: true });
  expect(await text.evaluate((element) => element === document.activeElement)).toBe(true);
  const markdown = '# Welcome\n\nA game about **moons**.\n\n[Read more](https://example.com/moons)';
  await text.fill(markdown);
  // The live preview renders as the page will.
  await dialog.locator('.markdown_editor_preview strong', { hasText: 'moons' }).waitFor();
  await dialog.getByRole('button', { name: en('markdown_editor_save'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });

  const view = description.locator('.markdown_view');
  await view.locator('strong', { hasText: 'moons' }).waitFor();
  // A user's '# Welcome' sits below the section heading (h2), never as a second h1.
  expect(await view.locator('h3').textContent()).toBe('Welcome');
  expect(await page.locator('main h1').count()).toBe(1);
  const link = view.getByRole('link', { name: 'Read more' });
  expect(await link.getAttribute('href')).toBe('https://example.com/moons');
  expect((await link.getAttribute('rel'))?.split(' ')).toEqual(expect.arrayContaining(['ugc', 'nofollow', 'noopener']));
  expect(await link.getAttribute('target')).toBe('_blank');

  const stored = await e2e.server.trpc(owner.token).projects.description.get.query({ project: project.id });
  expect(stored.markdown).toBe(markdown);
  await page.reload({ waitUntil: 'domcontentloaded' });
  await page.locator('main .markdown_view strong', { hasText: 'moons' }).waitFor({ timeout: 10_000 });

  // Cancel leaves the stored text alone.
  await section(page, 'project_overview_description').getByRole('button', { name: en('project_overview_edit_description'), exact: true }).click();
  await openDialog(page).getByLabel(en('markdown_editor_label'), { exact: true }).fill('thrown away');
  await openDialog(page).getByRole('button', { name: en('dialog_cancel'), exact: true }).click();
  await openDialog(page).waitFor({ state: 'detached' });
  expect((await e2e.server.trpc(owner.token).projects.description.get.query({ project: project.id })).markdown).toBe(markdown);
  await context.close();
}, 40_000);

test('the description is sanitised: no script, no event handler attributes; images lazy', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  const image = await uploadContentImage(e2e.server, owner, project.id, await photoLike(800, 400), 800, 400, 200);
  const url = new URL(image.url).pathname;
  const uploaded = { id: image.id, width: 800, height: 400, scale: 200, url };
  await putDescription(
    owner,
    project,
    `Safe text\n\n<script>window.__pwned = 1</script>\n\n<img src="/nothing.png" alt="pic" onerror="window.__pwned = 2">\n\n<a href="javascript:window.__pwned=3">bad link</a>\n\n![shot](${url})`,
    [uploaded],
  );
  const { page, context } = await e2e.openSignedIn({ user: owner });
  await showOverview(page, project);
  const view = page.locator('main .markdown_view');
  await view.getByText('Safe text').waitFor();
  const html = await view.innerHTML();
  expect(html).not.toContain('<script');
  expect(html).not.toContain('onerror');
  expect(html).not.toContain('javascript:');
  expect(await view.locator('img[alt="pic"]').getAttribute('loading')).toBe('lazy');
  // An uploaded image (scale 200 %) shows at half its pixel size, with its widths as the srcset.
  const shot = view.locator('img[alt="shot"]');
  expect(await shot.getAttribute('loading')).toBe('lazy');
  expect(await shot.getAttribute('width')).toBe('400');
  expect(await shot.getAttribute('height')).toBe('200');
  expect(await shot.getAttribute('srcset')).toContain(`/content-images/${image.id}/320 320w`);
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await context.close();
}, 30_000);

test('new branch through the prompt lands on the branch page; a taken title is refused in the dialog', async () => {
  const { project, developer } = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: developer });
  await showOverview(page, project);
  const branches = section(page, 'project_overview_branches');
  await branches.getByText(en('project_overview_branches_empty'), { exact: true }).waitFor();
  // A developer may create branches but not edit the description.
  expect(await page.getByRole('button', { name: en('project_overview_edit_description'), exact: true }).count()).toBe(0);

  await branches.getByRole('button', { name: en('project_overview_new_branch'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.getByLabel(en('project_overview_new_branch_label'), { exact: true }).fill('beta');
  await dialog.getByRole('button', { name: en('project_overview_create'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  // The prompt closes first, then the branch is created and the page moves to it.
  await page.waitForURL((url) => url.pathname.startsWith(`/projects/${project.id}/branches/`), { timeout: 10_000 });
  const listed = await e2e.server.trpc(developer.token).projects.branches.list.query({ project: project.id });
  expect(listed.map((branch) => branch.title)).toEqual(['beta']);
  expect(new URL(page.url()).pathname).toBe(`/projects/${project.id}/branches/${listed[0]!.id}`);

  await showOverview(page, project);
  await section(page, 'project_overview_branches').getByRole('link', { name: 'beta', exact: true }).waitFor();
  await section(page, 'project_overview_branches').getByRole('button', { name: en('project_overview_new_branch'), exact: true }).click();
  await openDialog(page).getByLabel(en('project_overview_new_branch_label'), { exact: true }).fill('beta');
  await openDialog(page).getByRole('button', { name: en('project_overview_create'), exact: true }).click();
  await openDialog(page).getByRole('alert').getByText(en('project_overview_name_taken'), { exact: true }).waitFor();
  await openDialog(page).getByRole('button', { name: en('dialog_cancel'), exact: true }).click();
  await openDialog(page).waitFor({ state: 'detached' });
  expect(await e2e.server.trpc(developer.token).projects.branches.list.query({ project: project.id })).toHaveLength(1);
  await context.close();
}, 40_000);

test('a title taken meanwhile comes back as name_conflict: the prompt opens again saying so inline (issue 29)', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: owner });
  await showOverview(page, project);
  await section(page, 'project_overview_branches').getByText(en('project_overview_branches_empty'), { exact: true }).waitFor();
  await section(page, 'project_overview_branches').getByRole('button', { name: en('project_overview_new_branch'), exact: true }).click();
  await openDialog(page).getByLabel(en('project_overview_new_branch_label'), { exact: true }).waitFor();
  // Someone else takes the title while the prompt is open.
  await createBranch(owner, project, 'release');
  await openDialog(page).getByLabel(en('project_overview_new_branch_label'), { exact: true }).fill('release');
  await openDialog(page).getByRole('button', { name: en('project_overview_create'), exact: true }).click();
  const again = openDialog(page);
  await again.getByRole('alert').getByText(en('project_overview_name_taken'), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await again.getByLabel(en('project_overview_new_branch_label'), { exact: true }).inputValue()).toBe('release');
  // No error dialog: the refusal is the prompt's.
  expect(await page.locator('dialog.dialog_error').count()).toBe(0);
  await again.getByRole('button', { name: en('dialog_cancel'), exact: true }).click();
  await context.close();
}, 40_000);

test('branches show the public badge and the current version with its date', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  const stable = await createBranch(owner, project, 'stable', true);
  await createBranch(owner, project, 'nightly');
  const version = await publishVersion(owner, project, stable, 'v1.2.0');
  const { page, context } = await e2e.openSignedIn({ user: owner });
  await showOverview(page, project);
  const branches = section(page, 'project_overview_branches');
  const stableRow = branches.locator('li.item', { has: page.getByRole('link', { name: 'stable', exact: true }) });
  const nightlyRow = branches.locator('li.item', { has: page.getByRole('link', { name: 'nightly', exact: true }) });
  await stableRow.waitFor();
  expect(await stableRow.locator('.badge').textContent()).toBe(en('project_overview_branch_public'));
  const versionLink = stableRow.getByRole('link', { name: 'v1.2.0', exact: true });
  expect(await versionLink.getAttribute('href')).toBe(`/projects/${project.id}/branches/${stable}/versions/${version}`);
  const published = await stableRow.locator('time').getAttribute('datetime');
  expect(Number.isNaN(Date.parse(published ?? ''))).toBe(false);
  expect((await stableRow.locator('time').textContent())?.trim()).not.toBe('');
  expect(await nightlyRow.locator('.badge').count()).toBe(0);
  expect(await nightlyRow.textContent()).toContain(en('project_overview_no_version'));
  await context.close();
}, 40_000);

test('a visitor sees a public project with its public branches only and no member links', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  await makePublic(e2e.server, project, owner);
  await createBranch(owner, project, 'public-branch', true);
  await createBranch(owner, project, 'secret-branch');
  await putDescription(owner, project, 'Hello **players**');
  const { page, context } = await e2e.open();
  await showOverview(page, project);
  const branches = section(page, 'project_overview_branches');
  await branches.getByRole('link', { name: 'public-branch', exact: true }).waitFor();
  expect(await branches.getByRole('link', { name: 'secret-branch', exact: true }).count()).toBe(0);
  await page.locator('main .markdown_view strong', { hasText: 'players' }).waitFor();
  expect(await page.getByRole('link', { name: en('project_overview_store_link'), exact: true }).getAttribute('href')).toBe(`/store/${project.id}`);
  for (const hidden of ['project_overview_settings', 'project_overview_edit_description', 'project_overview_new_branch']) {
    expect(await page.getByRole('link', { name: en(hidden), exact: true }).or(page.getByRole('button', { name: en(hidden), exact: true })).count()).toBe(0);
  }
  expect(await page.locator('[data-testid="project-role"]').count()).toBe(0);
  await context.close();
}, 30_000);

test('a private project is the not-found page for an outsider', async () => {
  const { project, outsider } = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: outsider });
  await visit(page, `/projects/${project.id}`, 'page_not_found');
  expect(await page.content()).not.toContain(project.title);
  await context.close();
}, 30_000);

test('a tester sees the settings link and the role, but no edit or new-branch buttons; no store link when private', async () => {
  const { project, tester } = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: tester });
  await showOverview(page, project);
  expect(await page.locator('[data-testid="project-role"]').textContent()).toBe(en('projects_list_role_tester'));
  expect(await page.getByRole('link', { name: en('project_overview_settings'), exact: true }).getAttribute('href')).toBe(`/projects/${project.id}/manage`);
  expect(await page.getByRole('button', { name: en('project_overview_edit_description'), exact: true }).count()).toBe(0);
  expect(await page.getByRole('button', { name: en('project_overview_new_branch'), exact: true }).count()).toBe(0);
  expect(await page.getByRole('link', { name: en('project_overview_store_link'), exact: true }).count()).toBe(0);
  // The sidebar lists the caller's projects, this one marked current.
  expect(await page.locator('aside.sidebar a[aria-current="page"]').textContent()).toBe(project.title);
  await context.close();
}, 30_000);

test('a member waiting for approval reads that in the sidebar, not an empty project list (issue 13)', async () => {
  const { project, owner, outsider } = await makeTeam(e2e.server);
  await makePublic(e2e.server, project, owner);
  const waiting = await registerUser(e2e.server);
  await addMember(e2e.server, project, waiting, 'tester', { pending: true });
  const { page, context } = await e2e.openSignedIn({ user: waiting });
  await showOverview(page, project);
  const sidebar = page.locator('aside.sidebar nav', { hasText: en('projects_title') });
  await sidebar.getByText(en('invite_page_awaiting', { project: project.title }), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await sidebar.textContent()).not.toContain(en('project_sidebar_empty'));
  expect(await (await e2e.server.fetch(`/api/projects/${project.id}`, { token: waiting.token })).json()).toMatchObject({ userIsPending: true, userRole: null });
  const violations = await seriousAccessibilityViolations(page);
  expect(violations.length, formatViolations(violations, 'pending member sidebar')).toBe(0);
  await context.close();

  // Someone else with no projects of their own is told that, not 'Nothing here yet' beside this project.
  const other = await e2e.openSignedIn({ user: outsider });
  await showOverview(other.page, project);
  const otherSidebar = other.page.locator('aside.sidebar nav', { hasText: en('projects_title') });
  await otherSidebar.getByText(en('projects_list_empty'), { exact: true }).waitFor({ timeout: 10_000 });
  expect(await otherSidebar.textContent()).not.toContain(en('invite_page_awaiting', { project: project.title }));
  await other.context.close();
}, 30_000);

test('layout: the breadcrumb keeps its distance from the sidebar heading (issue 13)', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: owner });
  await showOverview(page, project);
  const crumbs = (await page.locator('nav.breadcrumb').boundingBox())!;
  const heading = (await page.locator('aside.sidebar .sidebar_heading').first().boundingBox())!;
  expect(heading.y - (crumbs.y + crumbs.height)).toBeGreaterThanOrEqual(12);
  await context.close();
}, 30_000);

test('layout: at 375 px the page title comes before the sibling sidebar; wide, the sidebar is beside it on the start side (issue 29)', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  await createBranch(owner, project, 'main');
  for (const lang of ['en', 'ar']) {
    for (const width of [375, 1280]) {
      const { page, context } = await e2e.openSignedIn({ user: owner, viewport: { width, height: 812 }, storage: { lang } });
      await showOverview(page, project);
      const title = (await page.locator('main h1').first().boundingBox())!;
      const sidebar = (await page.locator('aside.sidebar').boundingBox())!;
      const main = (await page.locator('.with_sidebar_main').boundingBox())!;
      const where = { lang, width };
      if (width === 375) {
        // Stacked: title and content first, the sidebar under them.
        expect({ ...where, titleFirst: title.y + title.height <= sidebar.y }).toEqual({ ...where, titleFirst: true });
        expect({ ...where, sidebarBelow: main.y + main.height <= sidebar.y + 1 }).toEqual({ ...where, sidebarBelow: true });
      } else {
        // Side by side, the sidebar at the start (left, right in Arabic), the title at the top of its column.
        const startSide = lang === 'ar' ? sidebar.x >= main.x + main.width : sidebar.x + sidebar.width <= main.x;
        expect({ ...where, startSide, level: Math.abs(sidebar.y - main.y) < 2 }).toEqual({ ...where, startSide: true, level: true });
      }
      await context.close();
    }
  }
}, 60_000);

for (const theme of ['light', 'dark'] as const) {
  test(`axe, ${theme} theme: project overview and the markdown editor`, async () => {
    const { project, owner } = await makeTeam(e2e.server);
    await makePublic(e2e.server, project, owner);
    const branch = await createBranch(owner, project, 'main', true);
    await createBranch(owner, project, 'dev');
    await publishVersion(owner, project, branch, 'v1');
    await putDescription(owner, project, '# About\n\nSome *text* with a [link](https://example.com).\n\n- one\n- two');
    const { page, context } = await e2e.openSignedIn({ user: owner, colorScheme: theme, storage: { theme } });
    await showOverview(page, project);
    await page.locator('main .markdown_view').waitFor();
    await section(page, 'project_overview_branches').locator('li.item').nth(1).waitFor();
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe(theme);
    await page.waitForTimeout(150);
    let violations = await seriousAccessibilityViolations(page);
    expect(violations.length, formatViolations(violations, `project overview (${theme})`)).toBe(0);

    await page.getByRole('button', { name: en('project_overview_edit_description'), exact: true }).click();
    await openDialog(page).locator('.markdown_editor_preview .markdown_view').waitFor();
    await page.waitForTimeout(150);
    violations = await seriousAccessibilityViolations(page);
    expect(violations.length, formatViolations(violations, `markdown editor (${theme})`)).toBe(0);
    await context.close();
  }, 40_000);
}

test('Arabic: the overview is right-to-left and translated', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  const project2 = await createProject(e2e.server, owner, 'Second');
  const { page, context } = await e2e.openSignedIn({ user: owner, storage: { lang: 'ar' } });
  await showOverview(page, project);
  expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
  await page.getByRole('heading', { name: message('ar', 'project_overview_branches'), exact: true }).waitFor();
  await page.getByText(message('ar', 'project_overview_description_empty'), { exact: true }).waitFor();
  await page.locator('aside.sidebar').getByRole('link', { name: project2.title, exact: true }).waitFor();
  await context.close();
}, 30_000);
