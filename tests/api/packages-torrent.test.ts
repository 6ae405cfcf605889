import { afterAll, beforeAll, expect, test } from 'bun:test';
import bencode from 'bencode';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure } from '../support/trpc-failure.ts';
import { downloadUrl, fetchBytes, publishPackages, sha256Hex, uploadTree } from './packages-downloads-support.ts';

let server: TestServer;
let team: Team;
let packageId: string;
let zip: Uint8Array;
const files = {
  'bin/game': { content: new Uint8Array(900_000).map((_, i) => (i * 131) % 255), executable: true },
  'README.txt': { content: 'Read me\n' },
};

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
  packageId = (await uploadTree(server, team.owner, team.project.id, { files }, { title: 'Linux', compression: 1 })).pkg.id;
  zip = (await fetchBytes(await downloadUrl(server, `/api/projects/${team.project.id}/packages/${packageId}/download?filter=zip`, team.owner.token))).bytes;
});
afterAll(() => server?.stop());

type Torrent = { info: { name: Uint8Array; length: number; 'piece length': number; pieces: Uint8Array }; 'url-list': Uint8Array[]; announce?: unknown };
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function torrentOf(path: string, token?: string): Promise<{ raw: Uint8Array; torrent: Torrent }> {
  const response = await server.fetch(path, { token });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/x-bittorrent');
  const raw = new Uint8Array(await response.arrayBuffer());
  return { raw, torrent: bencode.decode(raw) as Torrent };
}

/** aria2c with no tracker, DHT or peers: the web seed is the only source. Async: the server runs in this process. */
async function aria2cDownload(torrent: Uint8Array): Promise<{ folder: string; exitCode: number; output: string }> {
  const folder = mkdtempSync(join(tmpdir(), 'cartridge-aria2-'));
  const torrentPath = join(folder, 'package.torrent');
  await Bun.write(torrentPath, torrent);
  const run = Bun.spawn(
    ['aria2c', '--seed-time=0', '--enable-dht=false', '--enable-dht6=false', '--bt-enable-lpd=false', '--enable-peer-exchange=false', '--bt-tracker-connect-timeout=1', '--summary-interval=0', '--console-log-level=warn', `--dir=${join(folder, 'out')}`, torrentPath],
    { timeout: 50_000, stdout: 'pipe', stderr: 'pipe' },
  );
  const [exitCode, out, err] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()]);
  return { folder, exitCode, output: out + err };
}

test('a private package: a torrent of its ZIP with a signed web seed that aria2c downloads from alone', async () => {
  const { raw, torrent } = await torrentOf(`/api/projects/${team.project.id}/packages/${packageId}/torrent`, team.tester.token);
  expect(text(torrent.info.name)).toBe(`${team.project.title} Linux.zip`);
  expect(torrent.info.length).toBe(zip.length);
  expect(torrent.info.pieces.length).toBe(Math.ceil(zip.length / torrent.info['piece length']) * 20);
  expect(torrent.announce).toBeUndefined();
  const seed = text(torrent['url-list'][0]!);
  expect(seed).toMatch(new RegExp(`/api/files/${packageId}/zip/\\d+/[\\w-]+/`));
  const expires = Number(new URL(seed).pathname.split('/')[5]);
  expect(expires * 1000 - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);
  expect(await server.deps.storage.stat(`packages/${packageId}/torrent`)).toBeDefined();

  const download = await aria2cDownload(raw);
  try {
    expect(download.exitCode, download.output).toBe(0);
    const bytes = new Uint8Array(readFileSync(join(download.folder, 'out', text(torrent.info.name))));
    expect(sha256Hex(bytes)).toBe(sha256Hex(zip));
  } finally {
    rmSync(download.folder, { recursive: true, force: true });
  }
});

test('tRPC returns the same torrent; outsiders get not_found', async () => {
  const rest = await torrentOf(`/api/projects/${team.project.id}/packages/${packageId}/torrent`, team.owner.token);
  const viaTrpc = await server.trpc(team.owner.token).packageDownloads.torrent.query({ project: team.project.id, package: packageId });
  const decoded = bencode.decode(Buffer.from(viaTrpc.base64, 'base64')) as Torrent;
  expect(bencode.encode(decoded.info)).toEqual(bencode.encode(rest.torrent.info));
  expect(viaTrpc.fileName).toBe(`${team.project.title} Linux.torrent`);
  expect((await server.fetch(`/api/projects/${team.project.id}/packages/${packageId}/torrent`, { token: team.outsider.token })).status).toBe(404);
  expect((await server.fetch(`/api/projects/${team.project.id}/packages/${packageId}/torrent`)).status).toBe(404);
  expect((await trpcFailure(server.trpc(team.outsider.token).packageDownloads.torrent.query({ project: team.project.id, package: packageId }))).code).toBe('not_found');
});

test('a public package seeds from the unsigned public route, also through the store route', async () => {
  const { branchId } = await publishPackages(server, team.owner, team.project, [packageId]);
  const { raw, torrent } = await torrentOf(`/api/store/projects/${team.project.id}/branches/${branchId}/packages/${packageId}/torrent`);
  const seed = text(torrent['url-list'][0]!);
  expect(seed).toBe(`${server.url}/api/files/${packageId}/zip/public/${encodeURIComponent(`${team.project.title} Linux.zip`)}`);
  const viaTrpc = await server.trpc().packageDownloads.storeTorrent.query({ project: team.project.id, branch: branchId, package: packageId });
  expect(Buffer.from(viaTrpc.base64, 'base64')).toEqual(Buffer.from(raw));
  const download = await aria2cDownload(raw);
  try {
    expect(download.exitCode, download.output).toBe(0);
    expect(sha256Hex(new Uint8Array(readFileSync(join(download.folder, 'out', text(torrent.info.name)))))).toBe(sha256Hex(zip));
  } finally {
    rmSync(download.folder, { recursive: true, force: true });
  }
  // Once the branch is private again, the public web seed stops serving.
  await server.fetch(`/api/projects/${team.project.id}/branches/${branchId}`, { method: 'PATCH', token: team.owner.token, json: { isPublic: false } });
  expect((await fetch(seed)).status).toBe(404);
});

test('a ZIP over 16 MiB (larger than one in-memory reply): aria2c still downloads it by web seed alone', async () => {
  const size = 20 * 1024 * 1024 + 4321;
  const content = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65536) crypto.getRandomValues(content.subarray(offset, Math.min(size, offset + 65536)));
  const large = (await uploadTree(server, team.owner, team.project.id, { files: { 'data.pak': { content } } }, { title: 'Large', compression: 1 })).pkg.id;
  const { raw, torrent } = await torrentOf(`/api/projects/${team.project.id}/packages/${large}/torrent`, team.owner.token);
  const largeZip = (await fetchBytes(await downloadUrl(server, `/api/projects/${team.project.id}/packages/${large}/download?filter=zip`, team.owner.token))).bytes;
  expect(torrent.info.length).toBe(largeZip.length);
  expect(largeZip.length).toBeGreaterThan(size);
  const download = await aria2cDownload(raw);
  try {
    expect(download.exitCode, download.output).toBe(0);
    expect(sha256Hex(new Uint8Array(readFileSync(join(download.folder, 'out', text(torrent.info.name)))))).toBe(sha256Hex(largeZip));
  } finally {
    rmSync(download.folder, { recursive: true, force: true });
  }
}, 120_000);
