import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { LOCAL_HELPER_PORT } from '../../src/shared/schemas/local-helper.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { noise } from '../support/noise.ts';
import { createApiToken, makePublic, type TestProject } from '../support/projects.ts';
import { cliEnv, runCli } from '../cli/support.ts';
import { startLocalHelper, type LocalHelper } from '../client/local-app-support.ts';
import { en, openDialog, startE2E, visit, watchConsole, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';

/**
 * Issue 17 end to end in Chromium: a new player finds the local app's downloads on /local, runs the app
 * (from source here), trusts the site, installs a package from its package page (the percent shown),
 * launches it (a shell script that writes a marker file), gets an update pushed with the CLI and takes
 * it with Update, repairs a damaged file from /local, uninstalls it after confirming, and sees the
 * not-detected warning once the app stops.
 *
 * The page calls the app on 127.0.0.1:17303 (spec §9). So that this test never competes for that port,
 * the app listens on a free one and the browser context forwards 17303 to it (Playwright answers the
 * CORS preflight of a routed request itself; the app's own answer, with its CORS header, is what the
 * page gets: the refusal of a site not trusted yet is readable, a trusted site gets the data). The package downloads of workdir_transition are sent through a
 * throttling proxy, so the install lasts a few seconds and its percent can be seen.
 */
let e2e: E2E;
let helper: LocalHelper;
let throttle: ReturnType<typeof startThrottle>;
let root: string;
let owner: TestUser;
let player: TestUser;
let project: TestProject;
let cli: Record<string, string>;
let origin: string;
const fakeBuild = 'a linux build of the local app';

type Pushed = { project: string; branch: string; package: string; packageTitle: string; version: string; versionTitle: string };

/** A forwarding proxy to the server that sends response bodies at `bytesPerSecond` (ranges kept). */
function startThrottle(target: string, bytesPerSecond: number) {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const headers = new Headers();
      for (const name of ['range', 'if-range', 'if-none-match']) {
        const value = request.headers.get(name);
        if (value !== null) headers.set(name, value);
      }
      const upstream = await fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers });
      const out = new Headers(upstream.headers);
      out.delete('content-encoding');
      if (!upstream.body || request.method === 'HEAD') return new Response(null, { status: upstream.status, headers: out });
      const reader = upstream.body.getReader();
      const started = performance.now();
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          for (let offset = 0; offset < value.length; offset += 16_384) {
            const piece = value.subarray(offset, offset + 16_384);
            sent += piece.length;
            const due = (sent / bytesPerSecond) * 1000 - (performance.now() - started);
            if (due > 0) await Bun.sleep(due);
            controller.enqueue(piece);
          }
        },
        cancel: () => reader.cancel(),
      });
      return new Response(body, { status: upstream.status, headers: out });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

/** A game: a shell script writing `label` into the marker file, and a data file of incompressible bytes. */
function writeGame(dir: string, label: string, seed: number): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\necho ${label} > '${join(root, 'marker')}'\n`);
  chmodSync(join(dir, 'run.sh'), 0o755);
  writeFileSync(join(dir, 'data', 'level.pak'), noise(3_000_000, seed));
  writeFileSync(join(dir, 'README.txt'), `Rocket Garden ${label}\n`);
}

async function push(label: string, seed: number, versionTitle: string): Promise<Pushed> {
  const dir = join(root, `build-${label}`);
  writeGame(dir, label, seed);
  const run = await runCli(['push', dir, `${project.id}/stable`, '--tags', 'os:linux', '--entrypoint', 'run.sh', '--version', versionTitle, '--title', 'Linux build', '--json'], cli);
  if (run.code !== 0) throw new Error(`cartridge push: ${run.code} ${run.stderr}`);
  return run.json() as unknown as Pushed;
}

/**
 * The page's calls of 127.0.0.1:17303 go to the app's real port; nothing there is a refused connection.
 * workdir_transition's package URL is moved to the throttling proxy (the signature does not cover the
 * origin).
 */
async function forwardHelper(context: BrowserContext): Promise<void> {
  await context.route(`http://127.0.0.1:${LOCAL_HELPER_PORT}/**`, async (route: Route) => {
    const request = route.request();
    const url = new URL(request.url());
    let body = request.postDataBuffer() ?? undefined;
    if (url.searchParams.get('method') === 'workdir_transition' && body) {
      const input = JSON.parse(body.toString('utf8')) as { package_url: string };
      const packageUrl = new URL(input.package_url);
      input.package_url = `${throttle.url}${packageUrl.pathname}${packageUrl.search}`;
      body = Buffer.from(JSON.stringify(input));
    }
    let response: Response;
    try {
      const headers = await request.allHeaders();
      delete headers['content-length'];
      response = await fetch(`${helper.url}${url.pathname}${url.search}`, { method: request.method(), headers, body: body ? new Uint8Array(body) : undefined });
    } catch {
      await route.abort('connectionrefused');
      return;
    }
    await route.fulfill({ status: response.status, headers: Object.fromEntries(response.headers), body: Buffer.from(await response.arrayBuffer()) });
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cartridge-e2e-local-'));
  const builds = join(root, 'builds');
  mkdirSync(builds);
  writeFileSync(join(builds, 'cartridge-helper-linux-x64'), fakeBuild);
  e2e = await startE2E({ LOCAL_APP_DIR: builds });
  origin = new URL(e2e.server.url).origin;
  throttle = startThrottle(e2e.server.url, 1_000_000);
  owner = await registerUser(e2e.server);
  player = await registerUser(e2e.server);
  const created = await e2e.server.fetch('/api/projects', { method: 'POST', token: owner.token, json: { title: 'Rocket Garden' } });
  project = (await created.json()) as TestProject;
  await makePublic(e2e.server, project, owner);
  const branch = (await (await e2e.server.fetch(`/api/projects/${project.id}/branches`, { method: 'POST', token: owner.token, json: { title: 'stable' } })).json()) as { id: string };
  const published = await e2e.server.fetch(`/api/projects/${project.id}/branches/${branch.id}`, { method: 'PATCH', token: owner.token, json: { isPublic: true } });
  if (published.status !== 200) throw new Error(`public branch: ${published.status} ${await published.text()}`);
  const home = join(root, 'cli-home');
  mkdirSync(home);
  cli = cliEnv(home);
  const login = await runCli(['login', '--server', e2e.server.url, '--token', await createApiToken(e2e.server, owner)], cli);
  if (login.code !== 0) throw new Error(`cartridge login: ${login.stderr}`);
}, 60_000);

afterAll(async () => {
  await helper?.dispose();
  throttle?.stop();
  await e2e?.close();
  rmSync(root, { recursive: true, force: true });
});

const packagePath = (pushed: Pushed) => `/projects/${pushed.project}/branches/${pushed.branch}/versions/${pushed.version}/packages/${pushed.package}`;
const launcher = (page: Page, name: string) => page.locator(`.package_launcher[data-action="${name}"]`);

/** Waits until the launcher's action shows a percent, then until its transition is over; the percents seen. */
async function followProgress(page: Page, name: string): Promise<number[]> {
  const seen: number[] = [];
  const item = launcher(page, name);
  await page.waitForFunction((selector) => document.querySelector(selector)?.hasAttribute('data-progress'), `.package_launcher[data-action="${name}"]`, { timeout: 15_000 });
  for (;;) {
    // One read of the progress, the button and the status together: the transition may end between two reads.
    const state = await item
      .evaluate((element) => ({
        progress: element.getAttribute('data-progress'),
        disabled: element.querySelector('button')?.disabled ?? false,
        status: element.querySelector('[role="status"]')?.textContent ?? '',
      }))
      .catch(() => null);
    if (state === null || state.progress === null) break;
    seen.push(Number(state.progress));
    expect(state.disabled).toBe(true);
    expect(state.status).toMatch(/^\d+%$/);
    await page.waitForTimeout(250);
  }
  return seen;
}

test('a player downloads, runs and trusts the local app, then installs, launches, updates, repairs and uninstalls a game', async () => {
  const v1 = await push('v1', 1, '1.0.0');
  const { context, page } = await e2e.openSignedIn({ user: player });
  const problems = watchConsole(page);
  await forwardHelper(context);

  // /local without the app: the warning with the server's download and the way to run it.
  await visit(page, '/local', 'page_local');
  const warning = page.locator('.local_warning[data-status="not_detected"]');
  await warning.waitFor({ timeout: 10_000 });
  expect(await warning.getByRole('heading', { level: 2 }).textContent()).toBe(en('local_not_detected_title'));
  const link = warning.getByRole('link', { name: 'Linux x64', exact: true });
  const href = await link.getAttribute('href');
  expect(href).toBe(`${e2e.server.url}/api/local-app/linux-x64`);
  expect(await (await fetch(href!)).text()).toBe(fakeBuild);
  expect(await warning.locator('.local_download[data-platform="linux-x64"] pre').textContent()).toContain(`'${href}'`);
  expect(await warning.textContent()).toContain(`cartridge-helper trust ${origin}`);
  const violations = await seriousAccessibilityViolations(page);
  if (violations.length > 0) throw new Error(formatViolations(violations, '/local not detected'));

  // The player runs it: it answers, but refuses this site until trusted; the page shows the command.
  helper = await startLocalHelper();
  await warning.getByRole('button', { name: en('state_retry') }).click();
  const untrusted = page.locator('.local_warning[data-status="not_trusted"]');
  await untrusted.waitFor({ timeout: 10_000 });
  expect(await untrusted.getByRole('heading', { level: 2 }).textContent()).toBe(en('local_not_trusted_title'));
  expect(await untrusted.locator('pre').textContent()).toBe(`cartridge-helper trust ${origin}`);
  for (const trusted of [origin, throttle.url]) expect(helper.cli(['trust', trusted]).exitCode).toBe(0);
  await untrusted.getByRole('button', { name: en('state_retry') }).click();
  await page.locator('.local_connected').waitFor({ timeout: 10_000 });
  await page.getByText(en('local_installed_empty')).waitFor();
  expect(await page.locator('.local_workspace_list').textContent()).toBe(helper.workspace);

  // Install from the package page: the dialog, then the percent, then Launch.
  await visit(page, packagePath(v1), 'page_package');
  const install = launcher(page, 'install').getByRole('button', { name: en('package_page_install'), exact: true });
  await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('.package_launcher[data-action="install"] button')?.disabled === false, undefined, { timeout: 10_000 });
  await install.click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  const ok = dialog.getByRole('button', { name: en('package_page_install'), exact: true });
  expect(await ok.isDisabled()).toBe(true);
  const dialogViolations = await seriousAccessibilityViolations(page);
  if (dialogViolations.length > 0) throw new Error(formatViolations(dialogViolations, 'install dialog'));
  await dialog.getByLabel(en('install_dialog_workspace')).selectOption('default');
  expect(await dialog.getByLabel(en('install_dialog_name')).inputValue()).toBe('Rocket Garden Linux build');
  expect(await ok.isDisabled()).toBe(false);
  await ok.click();
  await dialog.waitFor({ state: 'detached' });
  expect(await page.evaluate(() => localStorage.getItem('last_install_workspace_id'))).toBe('default');
  const installing = await followProgress(page, 'install');
  expect(installing.length).toBeGreaterThan(0);
  expect(installing.every((percent) => percent >= 0 && percent <= 100)).toBe(true);
  const gameDir = join(helper.workspace, 'Rocket Garden Linux build');
  const launch = launcher(page, 'launch').getByRole('button', { name: en('package_page_launch'), exact: true });
  await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('.package_launcher[data-action="launch"] button')?.disabled === false, undefined, { timeout: 15_000 });
  expect(readFileSync(join(gameDir, 'data', 'level.pak'))).toEqual(Buffer.from(noise(3_000_000, 1)));
  expect(await launcher(page, 'update').textContent()).toContain(en('package_page_local_no_update'));

  await launch.click();
  await waitForFile(join(root, 'marker'), 'v1\n');

  // An update pushed with the CLI: its package page offers Update, which replaces the files.
  const v2 = await push('v2', 2, '1.0.1');
  await visit(page, packagePath(v2), 'page_package');
  await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('.package_launcher[data-action="update"] button')?.disabled === false, undefined, { timeout: 10_000 });
  expect(await launcher(page, 'launch').textContent()).toContain(en('package_page_local_not_installed'));
  await launcher(page, 'update').getByRole('button', { name: en('package_page_update'), exact: true }).click();
  const updating = await followProgress(page, 'update');
  expect(updating.length).toBeGreaterThan(0);
  await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('.package_launcher[data-action="launch"] button')?.disabled === false, undefined, { timeout: 15_000 });
  expect(readFileSync(join(gameDir, 'data', 'level.pak'))).toEqual(Buffer.from(noise(3_000_000, 2)));
  await launcher(page, 'launch').getByRole('button', { name: en('package_page_launch'), exact: true }).click();
  await waitForFile(join(root, 'marker'), 'v2\n');

  // /local: the installed package; Repair puts a damaged file back.
  await visit(page, '/local', 'page_local');
  const row = page.locator('.local_workdir');
  await row.waitFor({ timeout: 10_000 });
  const text = await row.textContent();
  for (const part of ['Rocket Garden', 'stable', '1.0.1', 'Linux build', en('local_state_installed'), gameDir]) expect(text).toContain(part);
  const connectedViolations = await seriousAccessibilityViolations(page);
  if (connectedViolations.length > 0) throw new Error(formatViolations(connectedViolations, '/local connected'));
  writeFileSync(join(gameDir, 'README.txt'), 'tampered');
  // Repair, Show folder and Uninstall are in the row's menu; Launch stays a button.
  const rowMenu = row.getByRole('button', { name: en('row_menu_label', { name: 'Rocket Garden · Linux build' }), exact: true });
  await rowMenu.click();
  await row.getByRole('menuitem', { name: en('local_repair'), exact: true }).click();
  await waitForFile(join(gameDir, 'README.txt'), 'Rocket Garden v2\n');
  await page.waitForFunction(() => document.querySelector<HTMLButtonElement>('.local_workdir_actions .button_primary')?.disabled === false, undefined, { timeout: 15_000 });

  // Uninstall asks first (danger, Cancel focused), then removes the files.
  await rowMenu.click();
  await row.getByRole('menuitem', { name: en('local_uninstall'), exact: true }).click();
  const confirm = openDialog(page);
  await confirm.waitFor();
  expect(await confirm.getAttribute('role')).toBe('alertdialog');
  expect(await confirm.textContent()).toContain(gameDir);
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(en('dialog_cancel'));
  await confirm.getByRole('button', { name: en('local_uninstall'), exact: true }).click();
  await page.getByText(en('local_installed_empty')).waitFor({ timeout: 10_000 });
  expect(existsSync(gameDir)).toBe(false);

  // The app stops: the page says so again.
  await helper.stop();
  await page.reload();
  await page.locator('.local_warning[data-status="not_detected"]').waitFor({ timeout: 10_000 });
  expect(await page.getByRole('heading', { level: 2, name: en('local_not_detected_title') }).count()).toBe(1);
  expect(problems.filter((problem) => problem.startsWith('pageerror'))).toEqual([]);
  await context.close();
}, 120_000);

async function waitForFile(path: string, content: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(path) && readFileSync(path, 'utf8') === content) return;
    if (Date.now() > deadline) throw new Error(`${path} never held ${JSON.stringify(content)} (has ${existsSync(path) ? JSON.stringify(readFileSync(path, 'utf8')) : 'nothing'}); helper log:\n${helper.log()}`);
    await Bun.sleep(100);
  }
}


