import { startFakeItchApi, type FakeItchApi, type FakeItchKey } from '../support/fake-itch/api.ts';
import { installFakeButler, type FakeButler } from '../support/fake-itch/index.ts';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { itchAccount, itchKey, okJsonOf } from './deploys-support.ts';

/**
 * A test server's team whose owner holds a key of the fake itch API (account `developer`, game `game`),
 * with the deploy site `developer/game` and a version of two ready packages (os:linux, os:windows).
 */
async function makeDeployTeam(
  server: TestServer,
  itch: { setKey(key: string, account: FakeItchKey): void },
  developer: string,
): Promise<{ team: Team; siteId: string; versionId: string; linux: string; windows: string }> {
  const team = await makeTeam(server);
  const token = team.owner.token;
  const key = itchKey();
  itch.setKey(key, itchAccount(developer, ['game']));
  const credential = await okJsonOf<{ id: string }>(await server.fetch('/api/users/me/deploy-credentials', { method: 'POST', token, json: { provider: 'itch', key } }), 'credential');
  const site = await okJsonOf<{ id: string }>(
    await server.fetch(`/api/projects/${team.project.id}/deploy-sites`, { method: 'POST', token, json: { credential: credential.id, site: `${developer}/game` } }),
    'site',
  );
  const linux = (await uploadPackage(server, team.owner, team.project.id, { 'game.sh': '#!/bin/sh\n' }, { tags: ['os:linux'], title: 'Linux build', entrypoint: ['game.sh'] })).id;
  const windows = (await uploadPackage(server, team.owner, team.project.id, { 'Game.exe': 'MZ' }, { tags: ['os:windows'], title: 'Windows build', entrypoint: ['Game.exe'] })).id;
  const version = await okJsonOf<{ id: string }>(
    await server.fetch(`/api/projects/${team.project.id}/versions`, { method: 'POST', token, json: { title: '1.0', description: '', packages: [linux, windows] } }),
    'version',
  );
  return { team, siteId: site.id, versionId: version.id, linux, windows };
}

export type DeployWorld = Awaited<ReturnType<typeof makeDeployTeam>> & { server: TestServer; itch: FakeItchApi; butler: FakeButler; stop(): Promise<void> };

/** A test server with the fake itch API and the fake butler behind it, and makeDeployTeam's team on it. */
export async function startDeployWorld(developer: string): Promise<DeployWorld> {
  const itch = startFakeItchApi({ keys: {} });
  const butler = installFakeButler({ apiUrl: itch.url, steps: 2, stepMs: 20 });
  const server = await startTestServer({ ITCH_API_URL: itch.url, BUTLER_PATH: butler.path });
  const stop = async () => {
    await server.stop();
    await itch.stop();
    butler.cleanup();
  };
  return { ...(await makeDeployTeam(server, itch, developer)), server, itch, butler, stop };
}
