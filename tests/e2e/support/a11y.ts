import { afterAll, beforeAll, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { registerUser, type TestUser } from '../../support/accounts.ts';
import { createCloudAgentClient } from '../../support/cloud-agent-client.ts';
import { uploadPackage } from '../../support/packages.ts';
import { createProject } from '../../support/projects.ts';
import { en, openDialog, startE2E, visit, type E2E, type OpenOptions } from './app.ts';
import { formatViolations, seriousAccessibilityViolations } from './axe.ts';

type Screen = {
  name: string;
  signedIn: boolean;
  /** Brings the page to the state to check. */
  show(page: Page, user: TestUser, e2e: E2E): Promise<void>;
};

/** A Linux x86 package of the user's (the instance's first account: an administrator, every privilege), for the cloud-play page. */
async function cloudPlayPath(e2e: E2E, user: TestUser): Promise<string> {
  const project = await createProject(e2e.server, user);
  const pkg = await uploadPackage(e2e.server, user, project.id, { 'game.sh': '#!/bin/sh\n' }, { tags: ['os:linux', 'arch:x86'], entrypoint: ['game.sh'], title: 'Linux build' });
  return `/projects/${project.id}/packages/${pkg.id}/cloud-play`;
}

/** Every screen of issue 4, with its data loaded; plus one open dialog (they are part of the screens too). */
const screens: Screen[] = [
  { name: 'home (visitor)', signedIn: false, show: (page) => visit(page, '/', 'page_home') },
  {
    name: 'home (signed in)',
    signedIn: true,
    show: async (page, user) => {
      await visit(page, '/', 'page_home');
      await page.locator('main h1', { hasText: en('home_welcome', { name: user.name }) }).waitFor();
    },
  },
  { name: 'sign-in', signedIn: false, show: (page) => visit(page, '/login', 'page_sign_in') },
  { name: 'register', signedIn: false, show: (page) => visit(page, '/register', 'page_register') },
  {
    name: 'me',
    signedIn: true,
    show: async (page) => {
      await visit(page, '/me', 'page_me');
      await page.locator('[data-testid="profile-title"]').waitFor();
      await page.locator('main li.item').first().waitFor();
    },
  },
  { name: 'not-found', signedIn: false, show: (page) => visit(page, '/no/such/page', 'page_not_found') },
  {
    name: 'docs',
    signedIn: false,
    show: async (page) => {
      await visit(page, '/docs/en/', 'page_docs');
      await page.locator('main article.markdown').waitFor();
    },
  },
  { name: 'experiment', signedIn: false, show: (page) => visit(page, '/experiment', 'page_experiment') },
  {
    name: 'experiment with a danger confirmation open',
    signedIn: false,
    show: async (page) => {
      await visit(page, '/experiment', 'page_experiment');
      await page.getByRole('button', { name: en('experiment_show_danger'), exact: true }).click();
      await openDialog(page).waitFor();
    },
  },
  {
    name: 'experiment with an error dialog open',
    signedIn: false,
    show: async (page) => {
      await visit(page, '/experiment', 'page_experiment');
      await page.getByRole('button', { name: en('experiment_show_error'), exact: true }).click();
      await openDialog(page).waitFor();
    },
  },
  {
    name: 'cloud play (waiting for a machine)',
    signedIn: true,
    show: async (page, user, e2e) => {
      // A machine online (Start is offered only then) that never makes an offer: the page waits for it.
      const machine = await e2e.server.trpc(user.token).admin.cloudMachines.create.mutate({ title: 'Silent rack' });
      await createCloudAgentClient(e2e.server.url, machine.token, { capacity: 1 }).provide();
      await visit(page, await cloudPlayPath(e2e, user), 'page_package_cloud_play');
      await page.getByRole('button', { name: en('package_cloud_play_start'), exact: true }).click();
      await page.locator('.package_cloud_play[data-state="awaiting_machine"]').waitFor();
    },
  },
  {
    name: 'admin: cloud-play machines',
    signedIn: true,
    show: async (page, user, e2e) => {
      await e2e.server.trpc(user.token).admin.cloudMachines.create.mutate({ title: 'Rack A' });
      await visit(page, '/admin', 'page_admin');
      await page.locator('.admin_machine').first().waitFor();
    },
  },
];

/** One test per screen in one theme; fails on serious or critical axe-core violations, printed readably. */
export function defineAccessibilityTests(theme: 'light' | 'dark'): void {
  let e2e: E2E;
  let user: TestUser;
  beforeAll(async () => {
    e2e = await startE2E();
    user = await registerUser(e2e.server);
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
  });
  const options: OpenOptions = { colorScheme: theme, storage: { theme } };

  for (const screen of screens) {
    test(`axe, ${theme} theme: ${screen.name}`, async () => {
      const { page, context } = screen.signedIn ? await e2e.openSignedIn({ ...options, user }) : await e2e.open(options);
      try {
        await screen.show(page, user, e2e);
        const applied = await page.evaluate(() => document.documentElement.getAttribute('data-theme'));
        if (applied !== theme) throw new Error(`expected data-theme="${theme}" on <html>, got ${applied}`);
        // Let transitions settle so colours are measured at rest.
        await page.waitForTimeout(150);
        const violations = await seriousAccessibilityViolations(page);
        if (violations.length > 0) {
          const report = formatViolations(violations, `${screen.name} (${theme}, ${new URL(page.url()).pathname})`);
          console.error(report);
          throw new Error(report);
        }
      } finally {
        await context.close();
      }
    }, 30_000);
  }
}
