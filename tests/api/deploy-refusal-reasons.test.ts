import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { refusalReasonOf } from '../../src/shared/refusal-reasons.ts';
import { installFakeButler, startFakeItchApi, type FakeButler, type FakeItchApi } from '../support/fake-itch/index.ts';
import { uploadPackage, waitForJob } from '../support/packages.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { itchAccount, itchKey } from './deploys-support.ts';

/**
 * Issue 30: the deploy call's refusals that share a code carry details.reason (src/shared/refusal-reasons.ts),
 * over REST (`details`) and tRPC (`data.details`), so clients never read the English message: no packages
 * and a shared channel (both bad_param; the shared channel with its count and channel), and a channel
 * busy with another package's deploy (name_conflict). Codes and messages are the spec's, unchanged.
 */
let itch: FakeItchApi;
let butler: FakeButler;
let server: TestServer;
let team: Team;
let siteId: string;
let versionId: string;
let linux: string;
let windows: string;

beforeAll(async () => {
  itch = startFakeItchApi({ keys: {} });
  butler = installFakeButler({ apiUrl: itch.url, steps: 2, stepMs: 20 });
  server = await startTestServer({ ITCH_API_URL: itch.url, BUTLER_PATH: butler.path });
  team = await makeTeam(server);
  const key = itchKey();
  itch.setKey(key, itchAccount('reasons', ['game']));
  const credential = await server.fetch('/api/users/me/deploy-credentials', { method: 'POST', token: team.owner.token, json: { provider: 'itch', key } });
  const site = await server.fetch(`/api/projects/${team.project.id}/deploy-sites`, { method: 'POST', token: team.owner.token, json: { credential: ((await credential.json()) as { id: string }).id, site: 'reasons/game' } });
  siteId = ((await site.json()) as { id: string }).id;
  linux = (await uploadPackage(server, team.owner, team.project.id, { 'game.sh': '#!/bin/sh\n' }, { tags: ['os:linux'] })).id;
  windows = (await uploadPackage(server, team.owner, team.project.id, { 'Game.exe': 'MZ' }, { tags: ['os:windows'] })).id;
  const version = await server.fetch(`/api/projects/${team.project.id}/versions`, { method: 'POST', token: team.owner.token, json: { title: '1.0', description: '', packages: [linux, windows] } });
  versionId = ((await version.json()) as { id: string }).id;
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await itch?.stop();
  butler?.cleanup();
});

type Packages = { package: string; channel: string }[];

async function deployRest(packages: Packages): Promise<{ status: number; body: { code: string; message: string; details?: unknown } }> {
  const response = await server.fetch(`/api/projects/${team.project.id}/versions/${versionId}/deploy`, { method: 'POST', token: team.owner.token, json: { site: siteId, packages } });
  return { status: response.status, body: (await response.json()) as { code: string; message: string; details?: unknown } };
}

/** The tRPC refusal's data ({ code, httpStatus, details }) and message. */
async function deployTrpc(packages: Packages): Promise<{ message: string; data: { code: string; httpStatus: number; details?: unknown } }> {
  try {
    await server.trpc(team.owner.token).deploys.version.start.mutate({ project: team.project.id, version: versionId, site: siteId, packages });
  } catch (error) {
    return error as { message: string; data: { code: string; httpStatus: number; details?: unknown } };
  }
  throw new Error('the deploy was not refused');
}

describe('deploy refusals carry their reason', () => {
  test('no_packages (bad_param, the spec sentence)', async () => {
    const rest = await deployRest([]);
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ code: 'bad_param', message: 'No packages to deploy.', details: { field: 'packages', reason: 'no_packages' } });
    const trpc = await deployTrpc([]);
    expect(trpc.message).toBe('No packages to deploy.');
    expect(trpc.data).toMatchObject({ code: 'bad_param', httpStatus: 400, details: { field: 'packages', reason: 'no_packages' } });
    expect(refusalReasonOf(trpc.data.details)).toBe('no_packages');
  });

  test('shared_channel (bad_param) with the count and the channel in details', async () => {
    const packages = [{ package: linux, channel: 'all' }, { package: windows, channel: 'all' }];
    const rest = await deployRest(packages);
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({
      code: 'bad_param',
      message: 'Multiple packages cannot be deployed to a single channel. Currently 2 packages are set to deploy to channel all.',
      details: { field: 'packages', channel: 'all', count: 2, reason: 'shared_channel' },
    });
    const trpc = await deployTrpc(packages);
    expect(trpc.data).toMatchObject({ code: 'bad_param', httpStatus: 400, details: { field: 'packages', channel: 'all', count: 2, reason: 'shared_channel' } });
  });

  test('channel_busy (name_conflict) while another package deploys to that channel', async () => {
    butler.control({ stepMs: 300, steps: 6 });
    try {
      const first = await deployRest([{ package: linux, channel: 'busy' }]);
      expect(first.status).toBe(200);
      const rest = await deployRest([{ package: windows, channel: 'busy' }]);
      expect(rest.status).toBe(409);
      expect(rest.body).toEqual({
        code: 'name_conflict',
        message: 'Another package is still being deployed to channel busy of reasons/game: wait until it finishes',
        details: { field: 'packages', channel: 'busy', reason: 'channel_busy' },
      });
      const trpc = await deployTrpc([{ package: windows, channel: 'busy' }]);
      expect(trpc.data).toMatchObject({ code: 'name_conflict', httpStatus: 409, details: { field: 'packages', channel: 'busy', reason: 'channel_busy' } });
      const job = (first.body as unknown as { jobs: { job: string }[] }).jobs[0]!.job;
      expect((await waitForJob(server, job, 30_000)).status).toBe('succeeded');
    } finally {
      butler.control({});
    }
  }, 40_000);
});
