import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { refusalReasonOf } from '../../src/shared/refusal-reasons.ts';
import { waitForJob } from '../support/packages.ts';
import { startDeployWorld, type DeployWorld } from './deploy-world.ts';

/**
 * Issue 30: the deploy call's refusals that share a code carry details.reason (src/shared/refusal-reasons.ts),
 * over REST (`details`) and tRPC (`data.details`), so clients never read the English message: no packages
 * and a shared channel (both bad_param; the shared channel with its count and channel), and a channel
 * busy with another package's deploy (name_conflict). Codes and messages are the spec's, unchanged.
 */
let world: DeployWorld;
beforeAll(async () => {
  world = await startDeployWorld('reasons');
}, 90_000);
afterAll(() => world?.stop());

type Packages = { package: string; channel: string }[];

async function deployRest(packages: Packages): Promise<{ status: number; body: { code: string; message: string; details?: unknown } }> {
  const response = await world.server.fetch(`/api/projects/${world.team.project.id}/versions/${world.versionId}/deploy`, { method: 'POST', token: world.team.owner.token, json: { site: world.siteId, packages } });
  return { status: response.status, body: (await response.json()) as { code: string; message: string; details?: unknown } };
}

/** The tRPC refusal's data ({ code, httpStatus, details }) and message. */
async function deployTrpc(packages: Packages): Promise<{ message: string; data: { code: string; httpStatus: number; details?: unknown } }> {
  try {
    await world.server.trpc(world.team.owner.token).deploys.version.start.mutate({ project: world.team.project.id, version: world.versionId, site: world.siteId, packages });
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
    const packages = [{ package: world.linux, channel: 'all' }, { package: world.windows, channel: 'all' }];
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
    world.butler.control({ stepMs: 300, steps: 6 });
    try {
      const first = await deployRest([{ package: world.linux, channel: 'busy' }]);
      expect(first.status).toBe(200);
      const rest = await deployRest([{ package: world.windows, channel: 'busy' }]);
      expect(rest.status).toBe(409);
      expect(rest.body).toEqual({
        code: 'name_conflict',
        message: 'Another package is still being deployed to channel busy of reasons/game: wait until it finishes',
        details: { field: 'packages', channel: 'busy', reason: 'channel_busy' },
      });
      const trpc = await deployTrpc([{ package: world.windows, channel: 'busy' }]);
      expect(trpc.data).toMatchObject({ code: 'name_conflict', httpStatus: 409, details: { field: 'packages', channel: 'busy', reason: 'channel_busy' } });
      const job = (first.body as unknown as { jobs: { job: string }[] }).jobs[0]!.job;
      expect((await waitForJob(world.server, job, 30_000)).status).toBe('succeeded');
    } finally {
      world.butler.control({});
    }
  }, 40_000);
});
