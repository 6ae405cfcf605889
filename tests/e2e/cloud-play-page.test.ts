import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadPackage } from '../support/packages.ts';
import { createProject, grantPrivilege, makePublic, type TestProject } from '../support/projects.ts';
import { en, startE2E, visit, waitForScreen, watchConsole, type E2E } from './support/app.ts';
import { startBrowserAgent, type BrowserAgent } from './support/browser-agent.ts';

/**
 * The cloud-play page in Chromium against a host agent stood in for by another Chromium page
 * (support/browser-agent.ts: the provide protocol, a real RTCPeerConnection, a canvas whose colour
 * changes on each key press and click received, a tone): frames arrive, input reaches the game and
 * the decoded picture changes, sound is a track of the stream, Fullscreen, Stop, the agent ending the
 * session, leaving the page. The real agent (Xvfb, ffmpeg, the sandbox) is tested with cloudhost/.
 */
let e2e: E2E;
let player: TestUser;
let project: TestProject;
let pkg: Package;
let agent: BrowserAgent;

beforeAll(async () => {
  e2e = await startE2E();
  const admin = await registerUser(e2e.server);
  player = await registerUser(e2e.server);
  await grantPrivilege(e2e.server, player, 'cloud_play');
  project = await createProject(e2e.server, player, 'Rocket Garden');
  pkg = await uploadPackage(e2e.server, player, project.id, { 'game.sh': '#!/bin/sh\n' }, { tags: ['os:linux', 'arch:x86'], entrypoint: ['game.sh'], title: 'Linux build' });
  const machine = await e2e.server.trpc(admin.token).admin.cloudMachines.create.mutate({ title: 'Browser rack' });
  agent = await startBrowserAgent(e2e.browser, e2e.baseURL, machine.token);
}, 90_000);
afterAll(async () => {
  await agent?.close();
  await e2e?.close();
});

const cloudPlayPath = () => `/projects/${project.id}/packages/${pkg.id}/cloud-play`;

/** Console errors other than the expected 503 answers of session init while no machine has offered. */
function unexpected(problems: string[]): string[] {
  return problems.filter((problem) => !problem.includes('status of 503'));
}

/** The colour of the decoded picture at the middle of the video (drawn on a canvas). */
function videoColour(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const video = document.querySelector<HTMLVideoElement>('.cloud_play_video')!;
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const context = canvas.getContext('2d')!;
    context.drawImage(video, 0, 0);
    return Array.from(context.getImageData(Math.floor(canvas.width / 2), Math.floor(canvas.height / 2), 1, 1).data.slice(0, 3));
  });
}

/** Waits until the picture's colour is not `before` any more (the game's answer to an input); the new one. */
async function colourChange(page: Page, before: number[]): Promise<number[]> {
  for (let index = 0; index < 100; index++) {
    const now = await videoColour(page);
    if (now.some((value, channel) => Math.abs(value - before[channel]!) > 40)) return now;
    await page.waitForTimeout(50);
  }
  throw new Error(`the picture stayed ${before.join(',')}`);
}

async function startPlaying(page: Page): Promise<string> {
  const serving = agent.serveNextSession();
  await page.getByRole('button', { name: en('package_cloud_play_start'), exact: true }).click();
  const session = await serving;
  await page.locator('.package_cloud_play[data-state="playing"]').waitFor({ timeout: 15_000 });
  return session;
}

test('Start → playing: frames, sound track, input to the game, Fullscreen, Stop', async () => {
  const { page, context } = await e2e.openSignedIn({ user: player });
  const problems = watchConsole(page);
  await visit(page, cloudPlayPath(), 'page_package_cloud_play');
  await page.locator('.package_cloud_play[data-state="not_started"]').waitFor();
  const session = await startPlaying(page);
  const status = page.getByTestId('cloud-play-status');
  expect(await status.textContent()).toContain(en('package_cloud_play_status_playing'));

  // Frames: the video's clock advances and requestVideoFrameCallback fires.
  const frames = await page.evaluate(async () => {
    const video = document.querySelector<HTMLVideoElement>('.cloud_play_video')!;
    const start = video.currentTime;
    const callbacks = await new Promise<number>((resolve) => {
      let count = 0;
      const step = () => (++count >= 5 ? resolve(count) : video.requestVideoFrameCallback(step));
      video.requestVideoFrameCallback(step);
      setTimeout(() => resolve(count), 5000);
    });
    const stream = video.srcObject as MediaStream;
    return { callbacks, advanced: video.currentTime > start, audio: stream.getAudioTracks().length, videoTracks: stream.getVideoTracks().length, muted: video.muted, fit: getComputedStyle(video).objectFit };
  });
  expect(frames).toEqual({ callbacks: 5, advanced: true, audio: 1, videoTracks: 1, muted: true, fit: 'contain' });
  expect(await page.getByRole('button', { name: en('play_page_fullscreen'), exact: true }).isVisible()).toBe(true);
  expect(await page.getByRole('button', { name: en('package_cloud_play_start'), exact: true }).count()).toBe(0);

  // Keys go nowhere before the player clicks the picture.
  await page.keyboard.press('KeyA');
  expect(await agent.received()).toEqual([]);

  // The click captures (the game's cursor goes there, the sound comes on) but is not a click in the game.
  const video = page.getByTestId('cloud-play-video');
  const before = await videoColour(page);
  await video.click();
  await page.locator('.cloud_play_area[data-captured]').waitFor();
  expect(await page.evaluate(() => document.querySelector<HTMLVideoElement>('.cloud_play_video')!.muted)).toBe(false);
  expect(await page.locator('.cloud_play_hint').textContent()).toBe(en('package_cloud_play_captured', { key: 'Esc' }));
  await page.waitForTimeout(200);
  expect((await agent.received()).filter((message) => message[0] !== 3)).toEqual([]);

  // A key: down and up once, and the game's picture changes colour.
  await page.keyboard.down('KeyA');
  await page.keyboard.up('KeyA');
  const afterKey = await colourChange(page, before);
  // A click in the game: press and release of button 1, and the colour changes again.
  await video.click();
  await colourChange(page, afterKey);
  const received = (await agent.received()).filter((message) => message[0] !== 3);
  expect(received).toEqual([
    [0, 30],
    [1, 30],
    [4, 1],
    [5, 1],
  ]);
  const moves = (await agent.received()).filter((message) => message[0] === 3);
  expect(moves.length).toBeGreaterThan(0);
  // In the game's pixels (1280×720 by default), wherever the stream's own size.
  for (const [, x, y] of moves) {
    expect(x!).toBeLessThan(1280);
    expect(y!).toBeLessThan(720);
  }

  // Escape gives keyboard and mouse back: keys no longer reach the game.
  await page.keyboard.press('Escape');
  await page.locator('.cloud_play_area:not([data-captured])').waitFor();
  const count = (await agent.received()).length;
  await page.keyboard.press('KeyB');
  await page.waitForTimeout(200);
  expect((await agent.received()).length).toBe(count);

  await page.getByRole('button', { name: en('play_page_fullscreen'), exact: true }).click();
  await page.waitForFunction(() => document.fullscreenElement?.classList.contains('cloud_play_area'));
  await page.evaluate(() => document.exitFullscreen());
  await page.waitForFunction(() => document.fullscreenElement === null);

  await page.getByRole('button', { name: en('package_cloud_play_stop'), exact: true }).click();
  expect(await agent.waitForStop(session)).toBe('stopped');
  await page.locator('.package_cloud_play[data-state="not_started"]').waitFor();
  expect(await page.getByTestId('cloud-play-detail').textContent()).toBe(en('package_cloud_play_reason_stopped'));
  expect(await page.evaluate(() => document.querySelector<HTMLVideoElement>('.cloud_play_video')!.srcObject)).toBeNull();
  expect(unexpected(problems)).toEqual([]);
  await context.close();
}, 60_000);

test('the game exiting ends the session with its reason; Start again plays anew', async () => {
  const { page, context } = await e2e.openSignedIn({ user: player });
  const problems = watchConsole(page);
  await visit(page, cloudPlayPath(), 'page_package_cloud_play');
  const first = await startPlaying(page);
  agent.client.report(first, 'ended', { reason: 'game_exited' });
  await agent.client.provide();
  await page.locator('.package_cloud_play[data-state="not_started"]').waitFor({ timeout: 10_000 });
  expect(await page.getByTestId('cloud-play-detail').textContent()).toBe(en('package_cloud_play_reason_game_exited'));
  expect(await page.getByTestId('cloud-play-status').textContent()).toContain(en('package_cloud_play_status_not_started'));

  const serving = agent.serveNextSession();
  await page.getByRole('button', { name: en('package_cloud_play_start_again'), exact: true }).click();
  const second = await serving;
  expect(second).not.toBe(first);
  await page.locator('.package_cloud_play[data-state="playing"]').waitFor({ timeout: 15_000 });
  agent.client.report(second, 'errored', { reason: 'the game crashed (signal 11)' });
  await agent.client.provide();
  await page.locator('.package_cloud_play[data-state="error"]').waitFor({ timeout: 10_000 });
  expect(await page.getByTestId('cloud-play-detail').textContent()).toBe(en('package_cloud_play_reason_other', { reason: 'the game crashed (signal 11)' }));
  expect(unexpected(problems)).toEqual([]);
  await context.close();
}, 60_000);

test('leaving the page stops the session', async () => {
  const { page, context } = await e2e.openSignedIn({ user: player });
  await visit(page, cloudPlayPath(), 'page_package_cloud_play');
  const session = await startPlaying(page);
  await page.getByRole('link', { name: en('play_page_back'), exact: true }).click();
  await waitForScreen(page, 'page_package');
  expect(await agent.waitForStop(session)).toBe('stopped');
  await context.close();
}, 60_000);

test('from the store: Play in cloud on a public package, the same page under the store route', async () => {
  const base = `/api/projects/${project.id}`;
  const call = async (method: string, path: string, json?: unknown) => {
    const response = await e2e.server.fetch(path, { method, token: player.token, json });
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const branch = await call('POST', `${base}/branches`, { title: 'main' });
  await call('PATCH', `${base}/branches/${branch.id}`, { isPublic: true });
  const version = await call('POST', `${base}/versions`, { title: '1.0', description: '', packages: [pkg.id] });
  await call('POST', `${base}/branches/${branch.id}/versions/${version.id}`);
  await makePublic(e2e.server, project, player);

  const { page, context } = await e2e.openSignedIn({ user: player });
  await visit(page, `/store/${project.id}`, 'page_store_project');
  await page.locator('.store_downloads_summary').click({ timeout: 10_000 });
  const link = page.locator(`.store_package[data-package-id="${pkg.id}"]`).getByRole('link', { name: en('package_page_cloud_play'), exact: true });
  expect(await link.getAttribute('href')).toBe(`/store/${project.id}/${branch.id}/${pkg.id}/cloud-play`);
  await link.click();
  await waitForScreen(page, 'page_package_cloud_play');
  const session = await startPlaying(page);
  await page.getByRole('button', { name: en('package_cloud_play_stop'), exact: true }).click();
  expect(await agent.waitForStop(session)).toBe('stopped');
  await context.close();

  // A visitor has no privilege: no link on the store page.
  const visitor = await e2e.open();
  await visit(visitor.page, `/store/${project.id}`, 'page_store_project');
  await visitor.page.locator('.store_downloads_summary').click({ timeout: 10_000 });
  await visitor.page.locator(`.store_package[data-package-id="${pkg.id}"]`).waitFor();
  expect(await visitor.page.getByRole('link', { name: en('package_page_cloud_play'), exact: true }).count()).toBe(0);
  await visitor.context.close();
}, 60_000);
