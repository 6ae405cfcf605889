import { useDom } from './setup.ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadPackage } from '../support/packages.ts';
import { addMember, grantPrivilege, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { eq } from 'drizzle-orm';
import { cloudMachines, cloudSessions } from '../../src/server/db/schema/index.ts';
import { createCloudAgentClient } from '../support/cloud-agent-client.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';

/**
 * Issue 16 in the web client: the package page's Play in cloud (enabled only with the cloud_play
 * privilege, the tags os:linux and arch:x86 and an instance that offers it, spec §6, and (issue 27) a
 * machine online; else disabled with its reasons), the cloud-play page before any machine answers
 * (happy-dom has no WebRTC: the e2e test plays), and the unlisted /admin screen's cloud-play machines.
 */
useDom();
const { act, fireEvent, waitFor, within } = await import('@testing-library/react');
const { openApp } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { agentCommand } = await import('../../src/client/routes/admin/cloud-machines-section.tsx');

let server: TestServer;
let instanceAdmin: TestUser;
let team: Team;
let linux: Package;
let web: Package;
beforeAll(async () => {
  server = await startTestServer();
  // The first account of an instance is its administrator.
  instanceAdmin = await registerUser(server);
  team = await makeTeam(server);
  linux = await uploadPackage(server, team.developer, team.project.id, { 'game.sh': '#!/bin/sh\n' }, { tags: ['os:linux', 'arch:x86'], entrypoint: ['game.sh'], title: 'Linux build' });
  web = await uploadPackage(server, team.developer, team.project.id, { 'index.html': '<p>hi</p>' }, { tags: ['os:web'], entrypoint: ['index.html'], title: 'Web build' });
}, 60_000);
afterAll(() => server.stop());

const realFetch = globalThis.fetch;
/** What the instance info says of cloud play; undefined: as the server sends it. */
let instanceCloudPlay: boolean | undefined;

beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  instanceCloudPlay = undefined;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const response = await realFetch(input, init);
    if (instanceCloudPlay === undefined || !url.pathname.startsWith('/trpc/') || !url.pathname.includes('instance.info')) return response;
    const procedures = url.pathname.slice('/trpc/'.length).split(',');
    const json = (await response.json()) as unknown;
    const items = Array.isArray(json) ? json : [json];
    procedures.forEach((name, index) => {
      const data = (items[index] as { result?: { data?: Record<string, unknown> } } | undefined)?.result?.data;
      if (name === 'instance.info' && data) data.cloudPlay = instanceCloudPlay;
    });
    return new Response(JSON.stringify(json), { status: response.status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
});
afterEach(() => {
  globalThis.fetch = realFetch;
});

const body = () => within(document.body);

/** A machine online with room (an agent's provide call; online for CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS). */
async function machineOnline(options: { capacity?: number } = {}) {
  const created = await server.trpc(instanceAdmin.token).admin.cloudMachines.create.mutate({ title: 'UI rack' });
  const agent = createCloudAgentClient(server.url, created.token, { capacity: options.capacity ?? 1 });
  await agent.provide();
  return { id: created.machine.id, agent };
}

/** No machine any more (gone from the admin list too). */
async function noMachine(): Promise<void> {
  await server.deps.db.delete(cloudMachines);
}


const packageUrl = (pkg: Package) => `/projects/${team.project.id}/packages/${pkg.id}`;

async function cloudLauncher(pkg: Package, user: TestUser): Promise<HTMLElement> {
  openApp(packageUrl(pkg), user.token);
  await body().findByRole('heading', { level: 1, name: pkg.title });
  return waitFor(() => {
    const item = document.querySelector<HTMLElement>('.package_launcher[data-action="cloud_play"]');
    if (!item) throw new Error('no cloud play launcher yet');
    return item;
  });
}

describe('Play in cloud on the package page', () => {
  test('without the privilege: disabled, the reason tied to the button', async () => {
    const item = await cloudLauncher(linux, team.tester);
    const button = within(item).getByRole('button', { name: 'Play in cloud' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    const reason = document.getElementById(button.getAttribute('aria-describedby')!);
    expect(reason?.textContent).toBe('Your account doesn’t have the cloud play privilege.');
    expect(item.textContent).not.toContain('Cloud play needs the tags');
  });

  test('with the privilege on a Linux x86 package and a machine online: a link to the cloud-play page', async () => {
    const player = team.developer;
    await grantPrivilege(server, player, 'cloud_play');
    await machineOnline();
    const item = await cloudLauncher(linux, player);
    await waitFor(() => expect(within(item).getByRole('link', { name: 'Play in cloud' }).getAttribute('href')).toBe(`${packageUrl(linux)}/cloud-play`));
    expect(item.querySelector('button')).toBeNull();
    await noMachine();
  });

  test('with the privilege but no machine online (none, revoked, capacity 0): disabled, saying so; a link once one is online', async () => {
    const player = team.developer;
    await grantPrivilege(server, player, 'cloud_play');
    const disabledReason = async () => {
      await cloudLauncher(linux, player);
      // The link (while it is not known yet) and the disabled action are different elements: look again each time.
      const button = await waitFor(() => {
        const found = document.querySelector<HTMLButtonElement>('.package_launcher[data-action="cloud_play"] button');
        if (!found) throw new Error('no disabled Play in cloud yet');
        return found;
      });
      expect(button.disabled).toBe(true);
      expect(button.className).not.toContain('button_primary');
      return document.getElementById(button.getAttribute('aria-describedby')!)?.textContent;
    };
    await noMachine();
    expect(await disabledReason()).toBe('No cloud-play machine is online right now.');
    const revoked = await machineOnline();
    await server.trpc(instanceAdmin.token).admin.cloudMachines.revoke.mutate({ machine: revoked.id });
    expect(await disabledReason()).toBe('No cloud-play machine is online right now.');
    await machineOnline({ capacity: 0 });
    expect(await disabledReason()).toBe('No cloud-play machine is online right now.');
    await machineOnline();
    await cloudLauncher(linux, player);
    await waitFor(() => expect(document.querySelector('.package_launcher[data-action="cloud_play"] a')?.className).toContain('button_primary'));
    expect(document.querySelector('.package_launcher[data-action="cloud_play"] button')).toBeNull();
    await noMachine();
  });

  test('with the privilege on a web package: disabled, naming the missing tags', async () => {
    await grantPrivilege(server, team.admin, 'cloud_play');
    const item = await cloudLauncher(web, team.admin);
    const button = await waitFor(() => within(item).getByRole('button', { name: 'Play in cloud' }));
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(item.textContent).toContain('Cloud play needs the tags: Operating system: Linux, Architecture: x86.');
    expect(item.textContent).not.toContain('privilege');
  });

  test('an instance that does not offer cloud play: disabled with that reason first', async () => {
    await grantPrivilege(server, team.owner, 'cloud_play');
    instanceCloudPlay = false;
    const item = await cloudLauncher(linux, team.owner);
    await waitFor(() => expect(item.textContent).toContain('This site doesn’t offer cloud play.'));
    expect((within(item).getByRole('button', { name: 'Play in cloud' }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('the cloud-play page', () => {
  test('not allowed: the reasons, no Start', async () => {
    openApp(`${packageUrl(web)}/cloud-play`, team.tester.token);
    const notice = await body().findByTestId('cloud-play-not-allowed');
    expect(notice.textContent).toContain('This package can’t be played in the cloud:');
    expect(notice.textContent).toContain('Your account doesn’t have the cloud play privilege.');
    expect(notice.textContent).toContain('Cloud play needs the tags');
    expect(body().queryByRole('button', { name: 'Start' })).toBeNull();
    expect(body().getByRole('main').className).toContain('page_package_cloud_play');
  });

  test('no machine online: Start disabled with the reason, nothing is created; Start once one is online', async () => {
    await noMachine();
    const player = await registerUser(server);
    await grantPrivilege(server, player, 'cloud_play');
    await addMember(server, team.project, player, 'tester');
    openApp(`${packageUrl(linux)}/cloud-play`, player.token);
    await body().findByRole('heading', { level: 1, name: 'Play Linux build in the cloud' });
    const note = await body().findByTestId('cloud-play-no-machine');
    expect(note.textContent).toBe('No cloud-play machine is online right now.');
    const start = body().getByRole('button', { name: 'Start' }) as HTMLButtonElement;
    expect(start.disabled).toBe(true);
    expect(start.getAttribute('aria-describedby')).toBe(note.id);
    act(() => fireEvent.click(start));
    expect(document.querySelector('.package_cloud_play')!.getAttribute('data-state')).toBe('not_started');
    expect(await server.deps.db.select().from(cloudSessions).where(eq(cloudSessions.userId, player.id))).toEqual([]);

    await machineOnline();
    openApp(`${packageUrl(linux)}/cloud-play`, player.token);
    await body().findByRole('heading', { level: 1, name: 'Play Linux build in the cloud' });
    await waitFor(() => expect((body().getByRole('button', { name: 'Start' }) as HTMLButtonElement).disabled).toBe(false));
    expect(body().queryByTestId('cloud-play-no-machine')).toBeNull();
    await noMachine();
  });

  test('the machine gone between the page and Start: the error says no machine was online, and Start waits for one', async () => {
    const player = await registerUser(server);
    await grantPrivilege(server, player, 'cloud_play');
    await addMember(server, team.project, player, 'tester');
    await machineOnline();
    openApp(`${packageUrl(linux)}/cloud-play`, player.token);
    await body().findByRole('heading', { level: 1, name: 'Play Linux build in the cloud' });
    await waitFor(() => expect((body().getByRole('button', { name: 'Start' }) as HTMLButtonElement).disabled).toBe(false));
    await noMachine();
    act(() => fireEvent.click(body().getByRole('button', { name: 'Start' })));
    const root = document.querySelector('.package_cloud_play')!;
    await waitFor(() => expect(root.getAttribute('data-state')).toBe('error'));
    expect(body().getByTestId('cloud-play-detail').textContent).toBe('No machine was online to run the game. Try again later.');
    await waitFor(() => expect((body().getByRole('button', { name: 'Start again' }) as HTMLButtonElement).disabled).toBe(true));
    expect(body().getByTestId('cloud-play-no-machine').textContent).toBe('No cloud-play machine is online right now.');
  });

  test('Start waits for a machine, Stop ends the session and says so', async () => {
    const player = await registerUser(server);
    await grantPrivilege(server, player, 'cloud_play');
    await addMember(server, team.project, player, 'tester');
    await machineOnline();
    openApp(`${packageUrl(linux)}/cloud-play`, player.token);
    await body().findByRole('heading', { level: 1, name: 'Play Linux build in the cloud' });
    expect(document.title).toBe('Play Linux build in the cloud - Cartridge');
    const root = document.querySelector('.package_cloud_play')!;
    expect(root.getAttribute('data-state')).toBe('not_started');
    const status = body().getByTestId('cloud-play-status');
    expect(status.textContent).toBe('Not started.');
    const video = body().getByTestId('cloud-play-video') as HTMLVideoElement;
    expect(video.muted).toBe(true);
    expect(video.getAttribute('aria-label')).toBe('Game screen: Linux build');
    expect(body().queryByRole('button', { name: 'Fullscreen' })).toBeNull();
    expect(body().queryByRole('button', { name: 'Stop' })).toBeNull();

    await waitFor(() => expect((body().getByRole('button', { name: 'Start' }) as HTMLButtonElement).disabled).toBe(false));
    act(() => fireEvent.click(body().getByRole('button', { name: 'Start' })));
    // The machine (a scripted agent) never makes its offer: init is held, answers timeout, is asked again.
    await waitFor(() => expect(root.getAttribute('data-state')).toBe('awaiting_machine'));
    expect(status.textContent).toBe('Waiting for a machine to start the game…');
    expect(body().queryByRole('button', { name: 'Start' })).toBeNull();
    const rows = () => server.deps.db.select({ status: cloudSessions.status, reason: cloudSessions.reason }).from(cloudSessions).where(eq(cloudSessions.userId, player.id));
    await waitFor(async () => expect((await rows()).map((row) => row.status)).toEqual(['assigned']));

    act(() => fireEvent.click(body().getByRole('button', { name: 'Stop' })));
    await waitFor(() => expect(root.getAttribute('data-state')).toBe('not_started'));
    expect(body().getByTestId('cloud-play-detail').textContent).toBe('You stopped the session.');
    expect(body().getByRole('button', { name: 'Start again' })).toBeTruthy();
    await waitFor(async () => expect((await rows()).map((row) => [row.status, row.reason])).toEqual([['ended', 'stopped']]));
    await noMachine();
  }, 20_000);
});

describe('/admin: cloud-play machines', () => {
  test('not found for visitors and for users who are not instance administrators', async () => {
    openApp('/admin');
    await body().findByRole('heading', { level: 1, name: 'Page not found' });
    openApp('/admin', team.owner.token);
    await body().findByRole('heading', { level: 1, name: 'Page not found' });
  });

  test('list, add (the token shown once with how to start the agent), revoke with confirmation', async () => {
    openApp('/admin', instanceAdmin.token);
    await body().findByRole('heading', { level: 1, name: 'Administration' });
    expect(body().getByRole('main').className).toContain('page_admin');
    const section = await body().findByRole('region', { name: 'Cloud-play machines' });
    await within(section).findByText('No machines yet.');

    fireEvent.change(within(section).getByLabelText('Machine name'), { target: { value: 'Rack 1' } });
    act(() => fireEvent.click(within(section).getByRole('button', { name: 'Add machine' })));
    const dialog = await body().findByRole('dialog', { name: 'Machine added' });
    const token = (within(dialog).getByLabelText('Machine token') as HTMLInputElement).value;
    expect(token).toMatch(/^cm_/);
    expect(dialog.textContent).toContain('Copy it now: it won’t be shown again.');
    expect(dialog.querySelector('pre code')?.textContent).toBe(agentCommand(location.origin));
    expect(agentCommand('https://games.example.com')).toBe('node dist/cloudhost.js --server https://games.example.com --token-file /etc/cartridge/machine-token');
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'OK' })));
    await waitFor(() => expect(body().queryByRole('dialog')).toBeNull());

    const row = await waitFor(() => {
      const item = section.querySelector<HTMLElement>('.admin_machine');
      if (!item) throw new Error('no machine row yet');
      return item;
    });
    expect(row.querySelector('.item_title')?.textContent).toBe('Rack 1');
    expect(row.querySelector('[data-fact="last-seen"]')?.textContent).toBe('Never');
    expect(row.querySelector('[data-fact="capacity"]')?.textContent).toBe('0');
    expect(row.querySelector('[data-fact="sessions"]')?.textContent).toBe('0');
    expect(row.querySelector('[data-fact="version"]')?.textContent).toBe('Unknown');
    // The token works for the agent's call until revoked.
    const provide = () => server.fetch('/api/cloud-play/machine/provide', { method: 'POST', token, json: { capacity: 1, agentVersion: 'test 1.0', sessions: [], wait: false } });
    expect((await provide()).status).toBe(200);

    // Cancel keeps it.
    act(() => fireEvent.click(within(row).getByRole('button', { name: 'Revoke: Rack 1' })));
    let confirm = await body().findByRole('alertdialog', { name: 'Revoke this machine?' });
    expect(confirm.textContent).toContain('Rack 1 will get no more sessions');
    act(() => fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' })));
    await waitFor(() => expect(body().queryByRole('alertdialog')).toBeNull());
    expect(row.getAttribute('data-revoked')).toBeNull();

    act(() => fireEvent.click(within(row).getByRole('button', { name: 'Revoke: Rack 1' })));
    confirm = await body().findByRole('alertdialog', { name: 'Revoke this machine?' });
    act(() => fireEvent.click(within(confirm).getByRole('button', { name: 'Revoke' })));
    await waitFor(() => expect(section.querySelector('.admin_machine')?.getAttribute('data-revoked')).toBe('true'));
    const revoked = section.querySelector<HTMLElement>('.admin_machine')!;
    expect(within(revoked).getByText('Revoked')).toBeTruthy();
    expect(within(revoked).queryByRole('button', { name: /Revoke/ })).toBeNull();
    expect(revoked.querySelector('[data-fact="version"]')?.textContent).toBe('test 1.0');
    expect((await provide()).status).not.toBe(200);
  }, 20_000);
});
