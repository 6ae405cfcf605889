import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startCloudAgent, type RunningCloudAgent } from '../support/cloud-agent.ts';
import { buildColourGame, requireHostPrograms } from '../support/cloudhost-tools.ts';
import { uploadPackage } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { en, startE2E, visit, watchConsole, type E2E } from './support/app.ts';

/**
 * Issue 16 end to end: the real host agent (node dist/cloudhost.js: Xvfb, PulseAudio, ffmpeg, the
 * bwrap sandbox) plays a Linux x86 game this test builds (tests/cloudhost/fixtures/colour-game.c), in
 * Chromium on the cloud-play page. The game fills its window with a colour that changes on each key
 * press and click, plays a tone through PulseAudio, and reports what its sandbox let it do in
 * ~/checks.txt.
 */
let e2e: E2E;
let agent: RunningCloudAgent;
let player: TestUser;
let project: TestProject;
let game: Package;
const scratch = mkdtempSync(join(tmpdir(), 'cloud-play-e2e-'));
/** Paths outside the game's home it tries to write (none may appear on the host). */
const outside = ['/usr/cartridge-escape', '/etc/cartridge-escape', `${scratch}/escape`];

beforeAll(async () => {
  requireHostPrograms();
  e2e = await startE2E({ CLOUD_PLAY_WIDTH: '640', CLOUD_PLAY_HEIGHT: '480', CLOUD_PLAY_FPS: '30', CLOUD_PLAY_IDLE_SECONDS: '600' });
  // The instance's first account: its administrator, with every privilege (cloud_play too).
  player = await registerUser(e2e.server);
  project = await createProject(e2e.server, player, 'Colour game');
  buildColourGame(join(scratch, 'colour-game'));
  const serverPort = new URL(e2e.baseURL).port;
  const targets = [`net 127.0.0.1 ${serverPort}`, 'net 1.1.1.1 80', ...outside.map((path) => `write ${path}`)].join('\n');
  game = await uploadPackage(
    e2e.server,
    player,
    project.id,
    { 'bin/colour-game': readFileSync(join(scratch, 'colour-game')), 'bin/targets.txt': `${targets}\n` },
    { tags: ['os:linux', 'arch:x86'], entrypoint: ['bin', 'colour-game'], title: 'Colour game' },
  );
  const machine = await e2e.server.trpc(player.token).admin.cloudMachines.create.mutate({ title: 'Test rack' });
  agent = await startCloudAgent({ server: e2e.baseURL, token: machine.token, capacity: 1 });
  await agent.waitForLog(/connected to the server/);
}, 120_000);

afterAll(async () => {
  // SIGTERM: the agent ends its sessions and stops their display, sound server and encoders.
  await agent?.stop('SIGTERM');
  await e2e?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The colour of the decoded picture a quarter in from its corner (drawn on a canvas; the X cursor sits in the middle). */
function videoColour(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const video = document.querySelector<HTMLVideoElement>('.cloud_play_video')!;
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth || 1;
    canvas.height = video.videoHeight || 1;
    const context = canvas.getContext('2d')!;
    context.drawImage(video, 0, 0);
    return Array.from(context.getImageData(Math.floor(canvas.width / 4), Math.floor(canvas.height / 4), 1, 1).data.slice(0, 3));
  });
}

const bright = (colour: number[]) => Math.max(...colour) > 150;
const differs = (a: number[], b: number[]) => a.some((value, channel) => Math.abs(value - b[channel]!) > 60);

async function waitForColour(page: Page, accept: (colour: number[]) => boolean, what: string, timeoutMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let last: number[] = [];
  while (Date.now() < deadline) {
    last = await videoColour(page);
    if (accept(last)) return last;
    await page.waitForTimeout(50);
  }
  throw new Error(`${what}: the picture stayed ${last.join(',')}`);
}

test('Start, frames, a key and a click change the game’s colour, its tone is a track, the sandbox held, Fullscreen, Stop', async () => {
  const { page, context } = await e2e.openSignedIn({ user: player });
  const problems = watchConsole(page);
  await visit(page, `/projects/${project.id}/packages/${game.id}/cloud-play`, 'page_package_cloud_play');
  await page.getByRole('button', { name: en('package_cloud_play_start'), exact: true }).click();
  await page.locator('.package_cloud_play[data-state="playing"]').waitFor({ timeout: 45_000 });
  const session = /session (\S+): starting/.exec(await agent.waitForLog(/session \S+: starting/))![1]!;

  // Frames: requestVideoFrameCallback fires and the video's clock advances.
  const frames = await page.evaluate(async () => {
    const video = document.querySelector<HTMLVideoElement>('.cloud_play_video')!;
    const callbacks = await new Promise<number>((resolve) => {
      let count = 0;
      const step = () => (++count >= 10 ? resolve(count) : video.requestVideoFrameCallback(step));
      video.requestVideoFrameCallback(step);
      setTimeout(() => resolve(count), 10_000);
    });
    const start = video.currentTime;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stream = video.srcObject as MediaStream;
    return { callbacks, advanced: video.currentTime > start, audio: stream.getAudioTracks().length, width: video.videoWidth, height: video.videoHeight };
  });
  expect(frames).toEqual({ callbacks: 10, advanced: true, audio: 1, width: 640, height: 480 });
  const first = await waitForColour(page, bright, 'the game’s first colour');

  // Capture (the sound comes on), then a key: the decoded picture changes colour.
  await page.getByTestId('cloud-play-video').click();
  await page.locator('.cloud_play_area[data-captured]').waitFor();
  expect(await page.evaluate(() => document.querySelector<HTMLVideoElement>('.cloud_play_video')!.muted)).toBe(false);
  await page.keyboard.down('KeyA');
  await page.keyboard.up('KeyA');
  const afterKey = await waitForColour(page, (colour) => bright(colour) && differs(colour, first), 'the colour after a key');
  // A click in the game: the colour changes again.
  await page.getByTestId('cloud-play-video').click();
  await waitForColour(page, (colour) => bright(colour) && differs(colour, afterKey), 'the colour after a click');
  const home = join(agent.workDir, 'sessions', session, 'home');
  // 'a' is Linux code 30, X keycode 38; the click is button 1.
  expect(readFileSync(join(home, 'events.txt'), 'utf8').split('\n').filter(Boolean)).toEqual(['key 38', 'button 1']);

  // The tone: the audio track carries sound (not silence) once the player clicked.
  const level = await page.evaluate(async () => {
    const stream = document.querySelector<HTMLVideoElement>('.cloud_play_video')!.srcObject as MediaStream;
    const audio = new AudioContext();
    await audio.resume();
    const analyser = audio.createAnalyser();
    audio.createMediaStreamSource(stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    let loudest = 0;
    for (let index = 0; index < 40 && loudest < 0.05; index++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      analyser.getFloatTimeDomainData(samples);
      loudest = Math.max(loudest, ...samples.map(Math.abs));
    }
    await audio.close();
    return loudest;
  });
  expect(level).toBeGreaterThan(0.05);

  // The sandbox: no network (not even the host's loopback), nothing written outside the home.
  const checks = readFileSync(join(home, 'checks.txt'), 'utf8');
  expect(checks).toContain('done');
  expect(checks).not.toContain(' connected');
  expect(checks).toMatch(/^net 127\.0\.0\.1:\d+ /m);
  expect(checks).toMatch(/^net 1\.1\.1\.1:80 /m);
  for (const path of outside) {
    expect(checks).toContain(`write ${path} refused`);
    expect(existsSync(path)).toBe(false);
  }
  expect(checks).toContain('home written');

  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: en('play_page_fullscreen'), exact: true }).click();
  await page.waitForFunction(() => document.fullscreenElement?.classList.contains('cloud_play_area'));
  await page.evaluate(() => document.exitFullscreen());

  await page.getByRole('button', { name: en('package_cloud_play_stop'), exact: true }).click();
  await page.locator('.package_cloud_play[data-state="not_started"]').waitFor();
  expect(await page.getByTestId('cloud-play-detail').textContent()).toBe(en('package_cloud_play_reason_stopped'));
  await agent.waitForLog(new RegExp(`session ${session}: ended \\(stopped\\)`));
  expect(problems.filter((problem) => !problem.includes('status of 503'))).toEqual([]);
  await context.close();
}, 120_000);
