import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { desc, eq } from 'drizzle-orm';
import { defaultItchChannel, findSharedChannel, noPackagesToDeployMessage, sharedChannelMessage, type DeployJob } from '../../src/shared/schemas/deploy.ts';
import type { JobUpdatedEvent } from '../../src/shared/schemas/jobs.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { jobs } from '../../src/server/db/schema/index.ts';
import { deployJob } from '../../src/server/domains/deploys/deploy.job.ts';
import { findJob } from '../../src/server/jobs/queue.ts';
import { createLogger } from '../../src/server/logger.ts';
import { readEvents } from '../../src/shared/api/jobs.ts';
import { registerUser } from '../support/accounts.ts';
import { installFakeButler, startFakeItchApi, type FakeButler, type FakeItchApi } from '../support/fake-itch/index.ts';
import { uploadPackage, waitForJob } from '../support/packages.ts';
import { createProject, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { itchAccount, itchKey, replyRecorder } from './deploys-support.ts';

/**
 * Issue 18, the deploy job: POST /projects/{p}/versions/{v}/deploy (REST and tRPC) starts one job per
 * package that reads the package from our own storage, unpacks it into a private folder and pushes it
 * with butler (the fake one: tests/support/fake-itch/butler.ts, which records what it was given); the
 * jobs stream shows queued, downloading, unpacking, uploading, then succeeded or errored, with butler's
 * lines as the job's log. The key never leaves the server: not in replies, logs, job logs or argv.
 */

let server: TestServer;
let itch: FakeItchApi;
let butler: FakeButler;
let api: ReturnType<typeof replyRecorder>;
const logLines: string[] = [];
const key = itchKey();
let team: Team;
let siteId: string;
let versionId: string;
let linux: Package;
let windows: Package;

const files = {
  linux: { 'game.x86_64': new Uint8Array(300_000).fill(7), 'data/level1.txt': 'level one', 'data/readme.md': '# Hi' },
  windows: { 'Game.exe': 'MZ windows build', 'data/level1.txt': 'level one' },
};

beforeAll(async () => {
  itch = startFakeItchApi({ keys: {} });
  butler = installFakeButler({ apiUrl: itch.url, steps: 4, stepMs: 20 });
  server = await startTestServer(
    { ITCH_API_URL: itch.url, BUTLER_PATH: butler.path, BUTLER_IDLE_TIMEOUT: '2' },
    { log: createLogger('debug', (line) => logLines.push(line)) },
  );
  api = replyRecorder(server);
  await registerUser(server, 'admin');
  team = await makeTeam(server);
  itch.setKey(key, itchAccount('teamdev', ['game', 'other']));
  const credential = await api.call('/api/users/me/deploy-credentials', { method: 'POST', token: team.owner.token, json: { provider: 'itch', key, title: 'Studio' } });
  expect(credential.status).toBe(200);
  const site = await api.call(`/api/projects/${team.project.id}/deploy-sites`, { method: 'POST', token: team.owner.token, json: { credential: credential.body.id, site: 'teamdev.itch.io/game' } });
  expect(site.status).toBe(200);
  siteId = site.body.id;
  linux = await uploadPackage(server, team.owner, team.project.id, files.linux, { tags: ['os:linux', 'bits:64'], entrypoint: ['game.x86_64'], executables: ['game.x86_64'] });
  windows = await uploadPackage(server, team.owner, team.project.id, files.windows, { tags: ['os:windows'], entrypoint: ['Game.exe'] });
  const version = await api.call(`/api/projects/${team.project.id}/versions`, { method: 'POST', token: team.owner.token, json: { title: '1.2.0', description: '', packages: [linux.id, windows.id] } });
  expect(version.status).toBe(200);
  versionId = version.body.id;
}, 120_000);
afterAll(async () => {
  await server.stop();
  await itch.stop();
  butler.cleanup();
});

const deployPath = (version = versionId, project = team.project.id) => `/api/projects/${project}/versions/${version}/deploy`;
const deploy = (json: unknown, token = team.owner.token, path = deployPath()) => api.call(path, { method: 'POST', token, json });

/** Every job_updated event of the tokens' jobs until the stream closes. */
async function followJobs(tokens: string[]): Promise<JobUpdatedEvent[]> {
  const query = tokens.map((token) => `token=${encodeURIComponent(token)}`).join('&');
  const response = await server.fetch(`/api/jobs?${query}`, { headers: { accept: 'text/event-stream' } });
  expect(response.status).toBe(200);
  const events: JobUpdatedEvent[] = [];
  for await (const { event, data } of readEvents(response.body!)) if (event === 'job_updated') events.push(JSON.parse(data) as JobUpdatedEvent);
  return events;
}

describe('channel rule and refusals in words (spec §5)', () => {
  test('the itch channel is the tag values after the colon, sorted, joined with "-", or "default"', () => {
    expect(defaultItchChannel(['os:linux', 'bits:64'])).toBe('64-linux');
    expect(defaultItchChannel(['os:windows'])).toBe('windows');
    expect(defaultItchChannel([])).toBe('default');
    expect(findSharedChannel([{ channel: 'a' }, { channel: 'b' }, { channel: 'a' }, { channel: 'a' }])).toEqual({ channel: 'a', count: 3 });
    expect(findSharedChannel([{ channel: 'a' }, { channel: 'b' }])).toBeUndefined();
  });

  test('no packages, and two packages on one channel, are refused with the spec words and start nothing', async () => {
    const before = (await server.deps.db.select().from(jobs).where(eq(jobs.kind, 'deploy'))).length;
    const empty = await deploy({ site: siteId, packages: [] });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: 'bad_param', message: noPackagesToDeployMessage });
    expect(noPackagesToDeployMessage).toBe('No packages to deploy.');
    const shared = await deploy({ site: siteId, packages: [{ package: linux.id, channel: 'all' }, { package: windows.id, channel: 'all' }] });
    expect(shared.status).toBe(400);
    expect(shared.body.message).toBe('Multiple packages cannot be deployed to a single channel. Currently 2 packages are set to deploy to channel all.');
    expect(sharedChannelMessage(3, 'x')).toBe('Multiple packages cannot be deployed to a single channel. Currently 3 packages are set to deploy to channel x.');
    await expect(server.trpc(team.owner.token).deploys.version.start.mutate({ project: team.project.id, version: versionId, site: siteId, packages: [] })).rejects.toMatchObject({
      message: noPackagesToDeployMessage,
      data: { code: 'bad_param' },
    });
    expect((await server.deps.db.select().from(jobs).where(eq(jobs.kind, 'deploy'))).length).toBe(before);
  });
});

describe('deploying a version with two packages to two channels', () => {
  let started: DeployJob[];
  let events: JobUpdatedEvent[];

  test('starts one job per package, in the order given, and the stream shows every stage to succeeded', async () => {
    const reply = await deploy({
      site: siteId,
      packages: [
        { package: linux.id, channel: defaultItchChannel(linux.tags) },
        { package: windows.id, channel: defaultItchChannel(windows.tags) },
      ],
    });
    expect(reply.status).toBe(200);
    started = reply.body.jobs;
    expect(started.map((job) => [job.package, job.channel, job.site, job.provider, job.versionId])).toEqual([
      [linux.id, '64-linux', 'teamdev/game', 'itch', versionId],
      [windows.id, 'windows', 'teamdev/game', 'itch', versionId],
    ]);
    expect(started.every((job) => job.token.startsWith('cj_') && ['queued', 'downloading'].includes(job.state))).toBe(true);
    events = await followJobs(started.map((job) => job.token));
    for (const index of [0, 1]) {
      const mine = events.filter((event) => event.job === index);
      const states = mine.map((event) => (event.status === 'running' ? event.stage : event.status));
      // Stages in order (repeats while progress moves), ending succeeded.
      const order = ['queued', 'downloading', 'unpacking', 'uploading', 'succeeded'];
      const ranks = states.map((state) => order.indexOf(state ?? 'queued'));
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      expect(new Set(states)).toContain('uploading');
      expect(states.at(-1)).toBe('succeeded');
      const last = mine.at(-1)!;
      expect(last.type).toBe('output');
      if (last.type !== 'output') continue;
      const build = itch.builds.find((candidate) => candidate.channel === started[index]!.channel);
      expect(build).toBeDefined();
      expect(last.output).toEqual({ target: `teamdev/game:${started[index]!.channel}`, channel: started[index]!.channel, buildId: build!.id });
      const log = mine.flatMap((event) => event.log);
      expect(log.some((line) => line.includes(`Build ${build!.id} created`))).toBe(true);
      expect(log.some((line) => line.startsWith('Deploying to teamdev/game:'))).toBe(true);
    }
  }, 60_000);

  test("butler got exactly each package's files with their modes, the target, channel and version, and the key only in its environment", () => {
    const records = butler.records().filter((record) => record.userVersion === '1.2.0');
    expect(records.map((record) => record.spec).sort()).toEqual(['teamdev/game:64-linux', 'teamdev/game:windows']);
    const linuxRecord = records.find((record) => record.channel === '64-linux')!;
    expect(linuxRecord.files.map((file) => [file.path, file.size, file.mode])).toEqual([
      ['data/level1.txt', 9, 0o644],
      ['data/readme.md', 4, 0o644],
      ['game.x86_64', 300_000, 0o755],
    ]);
    expect(linuxRecord.outcome).toBe('succeeded');
    for (const record of records) {
      expect(record.apiKeyFromEnv).toBe(true);
      expect(record.json).toBe(true);
      expect(record.argv.join(' ')).not.toContain(key);
      expect(record.apiUrl).toBe(itch.url);
    }
    // The private folders are gone once the jobs ended.
    const workDir = server.deps.config.deploys.workDir;
    expect(existsSync(workDir) ? readdirSync(workDir) : []).toEqual([]);
  });

  test("the version's deploys list them newest first with their final state (REST and tRPC)", async () => {
    const list = await api.call(`/api/projects/${team.project.id}/versions/${versionId}/deploys`, { token: team.tester.token });
    expect(list.status).toBe(200);
    const ours = (list.body as DeployJob[]).filter((job) => started.some((item) => item.job === job.job));
    expect(ours.map((job) => job.state)).toEqual(['succeeded', 'succeeded']);
    expect(ours.every((job) => typeof job.startedBy === 'string' && job.startedBy.length > 0)).toBe(true);
    const viaTrpc = await server.trpc(team.owner.token).deploys.version.list.query({ project: team.project.id, version: versionId });
    expect(viaTrpc.map((job) => job.job)).toEqual((list.body as DeployJob[]).map((job) => job.job));
    const outsider = await api.call(`/api/projects/${team.project.id}/versions/${versionId}/deploys`, { token: team.outsider.token });
    expect([403, 404]).toContain(outsider.status);
  });
});

describe('who may deploy, and what', () => {
  test('testers, outsiders and visitors are refused; another project, an unknown site or a package outside the version are not_found', async () => {
    const body = { site: siteId, packages: [{ package: linux.id, channel: 'perm' }] };
    const refusals = [];
    for (const token of [team.tester.token, team.developer.token, team.outsider.token]) refusals.push((await deploy(body, token)).status);
    refusals.push((await server.fetch(deployPath(), { method: 'POST', json: body })).status);
    expect(refusals).toEqual([403, 403, 404, 404]);
    const other = await createProject(server, team.owner);
    const otherProject = await deploy(body, team.owner.token, deployPath(versionId, other.id));
    expect(otherProject.status).toBe(404);
    const unknownSite = await deploy({ ...body, site: 'nosuchsite' });
    expect(unknownSite.status).toBe(404);
    const extra = await uploadPackage(server, team.owner, team.project.id, { 'x.txt': 'x' });
    const outside = await deploy({ site: siteId, packages: [{ package: extra.id, channel: 'x' }] });
    expect(outside.status).toBe(404);
    expect(outside.body).toMatchObject({ code: 'not_found', details: { index: 0 } });
    for (const bad of [{ site: siteId, packages: [{ package: linux.id, channel: 'Bad Channel' }] }, { site: siteId }, { packages: [] }, 'text', [], { site: 5, packages: 'x' }, { site: siteId, packages: [{ package: linux.id, channel: 'a\u0000b' }] }]) {
      const refused = await deploy(bad);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('bad_param');
    }
  });
});

describe('failures', () => {
  test('butler failing mid-upload ends the job errored with its reason in words, and the folder is removed', async () => {
    butler.control({ mode: 'fail' });
    try {
      const reply = await deploy({ site: siteId, packages: [{ package: windows.id, channel: 'fails' }] });
      expect(reply.status).toBe(200);
      const done = await waitForJob(server, reply.body.jobs[0].job);
      expect(done.status).toBe('errored');
      expect(done.error).toStartWith('butler could not push the build: ');
      expect(done.attempts).toBe(1);
    } finally {
      butler.control({});
    }
    expect(readdirSync(server.deps.config.deploys.workDir)).toEqual([]);
  }, 30_000);

  test('butler going silent is stopped after BUTLER_IDLE_TIMEOUT and the job errors', async () => {
    butler.control({ mode: 'hang' });
    try {
      const reply = await deploy({ site: siteId, packages: [{ package: windows.id, channel: 'hangs' }] });
      // While the deploy waits on butler, the general job loops still run other work: a patch's resolve
      // finishes before the deploy does (it would wait for the deploy's end if they shared the loops).
      for (let tries = 0; (await findJob(server.deps.db, reply.body.jobs[0].job))?.stage !== 'uploading'; tries++) {
        expect(tries).toBeLessThan(400);
        await Bun.sleep(25);
      }
      const patch = await uploadPackage(server, team.owner, team.project.id, { ...files.windows, 'Game.exe': 'MZ patched' }, { basePackage: windows.id });
      expect(patch.status).toBe('ready');
      const [resolved] = await server.deps.db.select().from(jobs).where(eq(jobs.kind, 'resolve')).orderBy(desc(jobs.createdAt)).limit(1);
      const done = await waitForJob(server, reply.body.jobs[0].job, 30_000);
      expect(resolved!.finishedAt!.getTime()).toBeLessThan(done.finishedAt!.getTime());
      expect(done.status).toBe('errored');
      expect(done.error).toContain('said nothing for 2 s');
    } finally {
      butler.control({});
    }
  }, 40_000);

  test('the same package to the same channel while it runs answers the same job; another package on that channel is name_conflict', async () => {
    butler.control({ stepMs: 300, steps: 6 });
    try {
      const first = await deploy({ site: siteId, packages: [{ package: linux.id, channel: 'busy' }] });
      expect(first.status).toBe(200);
      const again = await deploy({ site: siteId, packages: [{ package: linux.id, channel: 'busy' }] });
      expect(again.body.jobs[0].job).toBe(first.body.jobs[0].job);
      const other = await deploy({ site: siteId, packages: [{ package: windows.id, channel: 'busy' }] });
      expect(other.status).toBe(409);
      expect(other.body.code).toBe('name_conflict');
      expect((await waitForJob(server, first.body.jobs[0].job, 30_000)).status).toBe('succeeded');
    } finally {
      butler.control({});
    }
  }, 40_000);

  test('a site deleted before its job runs ends the job errored in words', async () => {
    const job = await deployJob.enqueue(server.deps.db, {
      siteId: 'deleted-site',
      packageId: linux.id,
      versionId,
      versionTitle: '1.2.0',
      channel: 'gone',
      site: 'teamdev/game',
      provider: 'itch',
      packageTitle: 'Linux',
      startedBy: null,
    }, { projectId: team.project.id });
    const done = await waitForJob(server, job!.id);
    expect(done.status).toBe('errored');
    expect(done.error).toBe('The deploy site (or the credential it used) was deleted before the deploy ran');
  });

  test('a server without butler refuses before starting (not_supported) and says so on each itch site', async () => {
    const noButler = await startTestServer({ ITCH_API_URL: itch.url, BUTLER_PATH: '/nonexistent/butler' });
    try {
      const other = await makeTeam(noButler);
      const otherKey = itchKey();
      itch.setKey(otherKey, itchAccount('solo', ['game']));
      const credential = await noButler.fetch('/api/users/me/deploy-credentials', { method: 'POST', token: other.owner.token, json: { provider: 'itch', key: otherKey } });
      const site = await noButler.fetch(`/api/projects/${other.project.id}/deploy-sites`, { method: 'POST', token: other.owner.token, json: { credential: ((await credential.json()) as { id: string }).id, site: 'solo/game' } });
      const listed = (await site.json()) as { id: string; deployProblem: string | null; deployProblemMessage: string | null };
      expect(listed.deployProblem).toBe('butler_missing');
      expect(listed.deployProblemMessage).toContain("butler, itch.io's upload tool, is not installed on this server");
      const pkg = await uploadPackage(noButler, other.owner, other.project.id, { 'a.txt': 'a' });
      const version = await noButler.fetch(`/api/projects/${other.project.id}/versions`, { method: 'POST', token: other.owner.token, json: { title: '1', description: '', packages: [pkg.id] } });
      const refused = await noButler.fetch(deployPath(((await version.json()) as { id: string }).id, other.project.id), {
        method: 'POST',
        token: other.owner.token,
        json: { site: listed.id, packages: [{ package: pkg.id, channel: 'default' }] },
      });
      expect(refused.status).toBe(501);
      expect(await refused.json()).toMatchObject({ code: 'not_supported', details: { reason: 'butler_missing' } });
      expect((await noButler.deps.db.select().from(jobs).where(eq(jobs.kind, 'deploy'))).length).toBe(0);
    } finally {
      await noButler.stop();
    }
  }, 60_000);

  test('the key never appeared in any reply, log line, job log or butler argv', async () => {
    const rows = await server.deps.db.select().from(jobs).where(eq(jobs.kind, 'deploy'));
    expect(rows.length).toBeGreaterThan(3);
    for (const text of [...api.replies, ...logLines, ...rows.map((row) => JSON.stringify(row)), ...butler.records().map((record) => JSON.stringify(record))]) {
      expect(text).not.toContain(key);
    }
  });
});

describe('another user', () => {
  test('an admin signed up on its own cannot deploy to a project it is not in', async () => {
    const stranger = await registerUser(server, `stranger${Math.random().toString(36).slice(2, 8)}`);
    const refused = await deploy({ site: siteId, packages: [{ package: linux.id, channel: 'x' }] }, stranger.token);
    expect(refused.status).toBe(404);
  });
});
