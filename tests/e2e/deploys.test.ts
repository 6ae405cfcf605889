import { afterAll, beforeAll, expect, test } from 'bun:test';
import { itchAccount, itchKey } from '../api/deploys-support.ts';
import { fingerprintKey, installFakeButler, startFakeItchApi, type FakeButler, type FakeItchApi } from '../support/fake-itch/index.ts';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam } from '../support/projects.ts';
import { en, openDialog, section, startE2E, visit, watchConsole, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { restApi } from './support/projects.ts';

/**
 * Issue 18 end to end in Chromium: an itch.io key added on /me, a deploy site picked from the key's games
 * on the manage page, then a version of two packages deployed to two channels from the version page, both
 * jobs followed live to succeeded. The fake itch.io API and the fake butler stand in for itch.io.
 */
let e2e: E2E;
let itch: FakeItchApi;
let butler: FakeButler;
beforeAll(async () => {
  itch = startFakeItchApi({ keys: {} });
  // A few progress lines, far enough apart that the dialog shows the jobs running.
  butler = installFakeButler({ apiUrl: itch.url, steps: 6, stepMs: 150 });
  e2e = await startE2E({ ITCH_API_URL: itch.url, BUTLER_PATH: butler.path, BUTLER_IDLE_TIMEOUT: '5' });
}, 90_000);
afterAll(async () => {
  await e2e?.close();
  await itch?.stop();
  butler?.cleanup();
});

const { api, base } = restApi(() => e2e.server);

test('add an itch.io key, add a deploy site from its games, deploy two packages to two channels and watch both succeed', async () => {
  const team = await makeTeam(e2e.server);
  const key = itchKey();
  itch.setKey(key, itchAccount('e2edev', ['rocket', 'other']));
  const linuxFiles = { 'rocket.sh': '#!/bin/sh\necho rocket\n', 'assets/level-1.txt': 'level one' };
  const windowsFiles = { 'rocket.exe': 'MZ rocket', 'assets/level-1.txt': 'level one' };
  const linux = await uploadPackage(e2e.server, team.owner, team.project.id, linuxFiles, { tags: ['os:linux', 'bits:64'], title: 'Linux build', entrypoint: ['rocket.sh'] });
  const windows = await uploadPackage(e2e.server, team.owner, team.project.id, windowsFiles, { tags: ['os:windows'], title: 'Windows build', entrypoint: ['rocket.exe'] });
  const version = await api('POST', `${base(team)}/versions`, team.owner, { title: '2.0.1', description: '', packages: [linux.id, windows.id] });

  const { page, context } = await e2e.openSignedIn({ user: team.owner });
  const problems = watchConsole(page);

  // 1. The key, on /me.
  await visit(page, '/me', 'page_me');
  const credentials = section(page, 'me_deploy_heading');
  await credentials.getByRole('button', { name: en('me_deploy_add'), exact: true }).click();
  let dialog = openDialog(page);
  await dialog.getByLabel(en('deploy_credential_key'), { exact: true }).fill(key);
  await dialog.getByRole('button', { name: en('deploy_credential_add'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 15_000 });
  await credentials.locator('li.deploy_credential_item').first().waitFor({ timeout: 10_000 });
  expect(await page.content()).not.toContain(key);

  // 2. The site, picked from the key's itch.io games on the manage page.
  await visit(page, `/projects/${team.project.id}/manage`, 'page_manage');
  const sites = section(page, 'manage_deploy_heading');
  await sites.getByRole('button', { name: en('manage_deploy_add'), exact: true }).click();
  dialog = openDialog(page);
  const game = dialog.locator('input[type="radio"][value="e2edev/rocket"]');
  await game.waitFor({ timeout: 15_000 });
  await game.check();
  await dialog.getByRole('button', { name: en('deploy_site_add'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 15_000 });
  await sites.locator('li.deploy_site_item', { hasText: 'e2edev/rocket' }).waitFor({ timeout: 10_000 });

  // 3. The deploy, from the version page.
  await visit(page, `/projects/${team.project.id}/versions/${version.id}`, 'page_version');
  await page.locator('main h1', { hasText: '2.0.1' }).waitFor({ timeout: 10_000 });
  const actions = page.getByRole('group', { name: en('version_actions_label'), exact: true });
  await actions.getByRole('button', { name: en('version_deploy'), exact: true }).click();
  dialog = openDialog(page);
  const deploy = dialog.getByRole('button', { name: en('deploy_dialog_deploy'), exact: true });
  const siteSelect = dialog.getByLabel(en('deploy_dialog_site'), { exact: true });
  await siteSelect.waitFor({ timeout: 10_000 });
  const linuxRow = dialog.locator(`li.deploy_package[data-package-id="${linux.id}"]`);
  const windowsRow = dialog.locator(`li.deploy_package[data-package-id="${windows.id}"]`);
  await linuxRow.waitFor({ timeout: 10_000 });
  // §5 channels from the tags; no site chosen yet: Deploy disabled.
  expect(await linuxRow.getByLabel(en('deploy_dialog_channel'), { exact: true }).inputValue()).toBe('64-linux');
  expect(await windowsRow.getByLabel(en('deploy_dialog_channel'), { exact: true }).inputValue()).toBe('windows');
  expect(await deploy.isDisabled()).toBe(true);
  await siteSelect.selectOption({ label: 'e2edev/rocket (itch.io)' });
  expect(await dialog.locator('.deploy_site_problem').count()).toBe(0);
  await windowsRow.getByLabel(en('deploy_dialog_channel'), { exact: true }).fill('windows-beta');
  expect(await deploy.isEnabled()).toBe(true);
  let violations = await seriousAccessibilityViolations(page);
  expect(violations, formatViolations(violations, 'deploy to site form')).toEqual([]);
  await deploy.click();

  // 4. Both jobs, live, until they succeeded.
  const progress = dialog.locator('[data-testid="deploy-progress"]');
  await progress.waitFor({ timeout: 10_000 });
  const jobs = progress.locator('.deploy_job');
  await jobs.nth(1).waitFor({ timeout: 10_000 });
  expect(await jobs.locator('.deploy_job_title').allTextContents()).toEqual(['Linux build', 'Windows build']);
  expect(await jobs.locator('.deploy_job_channel').allTextContents()).toEqual([en('deploy_job_channel', { channel: '64-linux' }), en('deploy_job_channel', { channel: 'windows-beta' })]);
  await progress.locator('.deploy_job[data-state="succeeded"]').nth(1).waitFor({ timeout: 60_000 });
  expect(await jobs.locator('.deploy_job_state').allTextContents()).toEqual([en('deploy_state_succeeded'), en('deploy_state_succeeded')]);
  const builds = itch.builds.filter((build) => build.target === 'e2edev/rocket');
  expect(builds.map((build) => build.channel).sort()).toEqual(['64-linux', 'windows-beta']);
  const buildOf = (channel: string) => String(builds.find((build) => build.channel === channel)!.id);
  expect(await jobs.locator('.deploy_job_build').allTextContents()).toEqual([en('deploy_job_build', { build: buildOf('64-linux') }), en('deploy_job_build', { build: buildOf('windows-beta') })]);
  // butler's output, scrolled to its newest line.
  const log = jobs.first().locator('pre.deploy_log');
  expect(await log.textContent()).toContain('For channel `64-linux`: pushing first build');
  const scroll = await log.evaluate((element) => ({ top: element.scrollTop, height: element.scrollHeight, client: element.clientHeight }));
  expect(scroll.top + scroll.client).toBeGreaterThanOrEqual(scroll.height - 8);
  expect(await log.evaluate((element) => getComputedStyle(element).fontFamily)).toContain('monospace');
  violations = await seriousAccessibilityViolations(page);
  expect(violations, formatViolations(violations, 'deploy to site progress')).toEqual([]);
  await dialog.getByRole('button', { name: en('deploy_dialog_close'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });

  // The version page lists them under Deploys.
  const deploys = section(page, 'version_deploys_heading');
  await deploys.locator('.deploy_job[data-state="succeeded"]').nth(1).waitFor({ timeout: 15_000 });

  // What butler was given: two pushes, the right targets, channels and user version; the key only in its environment.
  const pushes = butler.records().filter((record) => record.target === 'e2edev/rocket');
  expect(pushes).toHaveLength(2);
  expect(pushes.map((push) => push.channel).sort()).toEqual(['64-linux', 'windows-beta']);
  for (const push of pushes) {
    expect(push.outcome).toBe('succeeded');
    expect(push.userVersion).toBe('2.0.1');
    expect(push.json).toBe(true);
    expect(push.apiKeyFromEnv).toBe(true);
    expect(push.keyFingerprint).toBe(fingerprintKey(key));
    expect(push.argv.join(' ')).not.toContain(key);
    expect(push.argv).toContain(`e2edev/rocket:${push.channel}`);
  }
  const filesOf = (channel: string) => pushes.find((push) => push.channel === channel)!.files.map((file) => file.path);
  expect(filesOf('64-linux')).toEqual(['assets/level-1.txt', 'rocket.sh']);
  expect(filesOf('windows-beta')).toEqual(['assets/level-1.txt', 'rocket.exe']);
  expect(await page.content()).not.toContain(key);
  // The games' cover pictures are on itch.io's image host, which the test machine cannot reach: only those loads may fail.
  expect(problems.filter((problem) => !problem.includes('Failed to load resource: net::ERR_NAME_NOT_RESOLVED'))).toEqual([]);
  await context.close();
}, 120_000);
