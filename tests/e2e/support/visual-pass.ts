import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Package } from '../../../src/shared/schemas/packages.ts';
import { uploadPackage } from '../../support/packages.ts';
import { makeTeam, type Team } from '../../support/projects.ts';
import { rtlLanguage, startE2E, visit, type E2E } from './app.ts';
import { formatViolations, seriousAccessibilityViolations } from './axe.ts';
import { restApi, type Item } from './projects.ts';

/**
 * Issue 19's visual pass: the main screens as a signed-in developer with a small project, in the
 * light and dark themes, in English and Arabic (right to left). Every screen must fit a 375 px phone
 * without horizontal scrolling and be axe-core clean; each leaves a full-page screenshot under
 * tests/artifacts/visual/ for a person to look at (the folder is ignored by git). One file per width
 * (visual-pass-wide, visual-pass-phone) so the two run side by side; each starts its own server.
 */
export type VisualPass = { e2e: E2E; team: Team; branch: Item; version: Item; linuxPackage: Package };

export const artifacts = join(import.meta.dir, '..', '..', 'artifacts', 'visual');

/** Starts the server and browser with the small project before the file's tests; closes them after. */
export function useVisualPass(): VisualPass {
  const state = {} as VisualPass;
  const { api, base } = restApi(() => state.e2e.server);
  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    const e2e = await startE2E();
    state.e2e = e2e;
    const team = await makeTeam(e2e.server);
    state.team = team;
    const project = `/api/projects/${team.project.id}`;
    const description =
      '## A small game\n\nJump between **platforms** and collect stars. See the [manual](https://example.com/manual) for the controls.\n\n- Twelve levels\n- A boss\n';
    await e2e.server.fetch(`${project}/description`, { method: 'PUT', token: team.owner.token, json: { markdown: description, lang: null, images: [] } });
    const webPackage = await uploadPackage(
      e2e.server,
      team.owner,
      team.project.id,
      { 'index.html': '<!doctype html><title>Game</title><canvas></canvas><script src="game.js"></script>', 'game.js': 'void 0;' },
      { tags: ['os:web'], entrypoint: ['index.html'], title: 'Web build' },
    );
    state.linuxPackage = await uploadPackage(
      e2e.server,
      team.owner,
      team.project.id,
      { 'bin/run.sh': '#!/bin/sh\necho run\n', 'data/level1.txt': 'x'.repeat(5000), 'README.txt': 'Read me' },
      { tags: ['os:linux', 'arch:x86'], entrypoint: ['bin', 'run.sh'], title: 'Linux build', executables: ['bin/run.sh'] },
    );
    // One in no version: the packages screen shows its Delete and when it is collected.
    await uploadPackage(e2e.server, team.owner, team.project.id, { 'tools/editor.exe': 'MZ' }, { tags: ['os:windows', 'arch:x86', 'bits:64'], entrypoint: ['tools', 'editor.exe'] });
    state.branch = await api('POST', `${base(team)}/branches`, team.owner, { title: 'main' });
    await api('POST', `${base(team)}/branches`, team.owner, { title: 'beta-with-a-rather-long-branch-name' });
    state.version = await api('POST', `${base(team)}/versions`, team.owner, {
      title: '1.0.0',
      description: '### What changed\n\n- Faster loading\n- New level',
      packages: [state.linuxPackage.id, webPackage.id],
    });
    await api('POST', `${base(team)}/branches/${state.branch.id}/versions/${state.version.id}`, team.owner);
  }, 120_000);
  afterAll(async () => {
    await state.e2e?.close();
  });
  return state;
}

type Screen = { name: string; path: (state: VisualPass) => string; pageClass: string; signedIn: boolean };

const screens: Screen[] = [
  { name: 'home', path: () => '/', pageClass: 'page_home', signedIn: true },
  { name: 'projects', path: () => '/projects', pageClass: 'page_projects', signedIn: true },
  { name: 'overview', path: (s) => `/projects/${s.team.project.id}`, pageClass: 'page_project_overview', signedIn: true },
  { name: 'branch', path: (s) => `/projects/${s.team.project.id}/branches/${s.branch.id}`, pageClass: 'page_branch', signedIn: true },
  { name: 'version', path: (s) => `/projects/${s.team.project.id}/branches/${s.branch.id}/versions/${s.version.id}`, pageClass: 'page_version', signedIn: true },
  { name: 'package', path: (s) => `/projects/${s.team.project.id}/branches/${s.branch.id}/versions/${s.version.id}/packages/${s.linuxPackage.id}`, pageClass: 'page_package', signedIn: true },
  { name: 'packages', path: (s) => `/projects/${s.team.project.id}/packages`, pageClass: 'page_packages', signedIn: true },
  { name: 'manage', path: (s) => `/projects/${s.team.project.id}/manage`, pageClass: 'page_manage', signedIn: true },
  { name: 'me', path: () => '/me', pageClass: 'page_me', signedIn: true },
  { name: 'docs', path: () => '/docs/{lang}/', pageClass: 'page_docs', signedIn: true },
  { name: 'sign-in', path: () => '/login', pageClass: 'page_sign_in', signedIn: false },
];

/** Waits until the screen's data has loaded: no spinner left in the page. */
async function settle(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('main .state_loading, .page_processing') === null, undefined, { timeout: 10_000 });
  // Fonts, lazy images and transitions come to rest before anything is measured.
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(150);
}

/** How far the page scrolls sideways (0 when it fits), and the widest element that sticks out. */
async function overflow(page: Page): Promise<{ by: number; culprit: string | null }> {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const by = document.scrollingElement!.scrollWidth - width;
    if (by <= 0) return { by, culprit: null };
    let culprit: string | null = null;
    let widest = 0;
    for (const element of document.querySelectorAll('body *')) {
      const box = element.getBoundingClientRect();
      const out = Math.max(box.right - width, -box.left);
      if (out > widest) {
        widest = out;
        culprit = `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? `.${element.className.trim().split(/\s+/).join('.')}` : ''}`;
      }
    }
    return { by, culprit };
  });
}


export const themes = ['light', 'dark'] as const;
const languages = ['en', rtlLanguage] as const;

/** The pass at one width: one test per theme and language. */
export function visualPassTests(state: VisualPass, width: 1280 | 375): void {
  for (const theme of themes) {
    for (const lang of languages) {
  test(`visual pass at ${width} px, ${theme}, ${lang}: fits, axe clean, screenshots`, async () => {
    const options = { viewport: { width, height: width === 375 ? 812 : 800 }, colorScheme: theme, storage: { theme, lang } };
    const signedIn = await state.e2e.openSignedIn({ ...options, user: state.team.owner });
    const visitor = await state.e2e.open(options);
    const problems: string[] = [];
    try {
      for (const screen of screens) {
        const page = screen.signedIn ? signedIn.page : visitor.page;
        const path = screen.path(state).replace('{lang}', lang);
        await visit(page, path, screen.pageClass);
        await settle(page);
        const where = `${screen.name} (${width} px, ${theme}, ${lang}, ${path})`;
        const applied = await page.evaluate(() => [document.documentElement.getAttribute('data-theme'), document.documentElement.lang]);
        if (applied[0] !== theme || applied[1] !== lang) problems.push(`${where}: expected ${theme}/${lang}, got ${applied.join('/')}`);
        await page.screenshot({ path: join(artifacts, `${screen.name}-${width}-${theme}-${lang}.png`), fullPage: true });
        if (width === 375) {
          const wide = await overflow(page);
          if (wide.by > 0) problems.push(`${where}: scrolls sideways by ${wide.by} px (widest: ${wide.culprit})`);
          // Issue 29: a screen's sibling sidebar stacks under its title, not above it.
          const sidebarFirst = await page.evaluate(() => {
            const title = document.querySelector('main h1');
            const sidebar = document.querySelector('main aside.sidebar');
            return title !== null && sidebar !== null && sidebar.getBoundingClientRect().top < title.getBoundingClientRect().bottom;
          });
          if (sidebarFirst) problems.push(`${where}: the sidebar is drawn above the page title`);
        }
        const violations = await seriousAccessibilityViolations(page);
        if (violations.length > 0) problems.push(formatViolations(violations, where));
      }
    } finally {
      await signedIn.context.close();
      await visitor.context.close();
    }
    if (problems.length > 0) console.error(problems.join('\n'));
    expect(problems).toEqual([]);
  }, 120_000);
    }
  }
}
