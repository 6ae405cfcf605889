/**
 * Issue 13, items 5 and 8: finalize refuses archives whose symlinks leave the package or whose names
 * and paths are too long (400, the catalogued body naming the path, nothing stored), and the ZIP
 * writer never emits a link leading out of the package, even from an index stored before the rule.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { addFile, addSymlink, bytesSource, concatBytes, createTree, encodeIndex, indexTree, toHex } from '../../src/shared/archive/index.ts';
import { jobs, packageChunks, packages } from '../../src/server/db/schema/index.ts';
import { indexKey } from '../../src/server/domains/packages/blob-keys.ts';
import { preparePackageDownloads } from '../../src/server/domains/packages/downloads/prepare-downloads.ts';
import { readPackageIndex } from '../../src/server/domains/packages/records/package-content.ts';
import { zipLayout } from '../../src/server/domains/packages/downloads/zip/layout.ts';
import { createLogger } from '../../src/server/logger.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { craftArchive, nestedFileIndex, packIgnoringLinkRule, sha256 } from '../support/archive-craft.ts';
import { sendArchive, storedChunkRow, waitForJob } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { downloadUrl, fetchBytes, uploadTree, type TreeSpec } from './packages-downloads-support.ts';

let server: TestServer;
let owner: TestUser;
let project: TestProject;
const logLines: string[] = [];
const sandboxes: string[] = [];

beforeAll(async () => {
  server = await startTestServer({}, { log: createLogger('error', (line) => logLines.push(line)) });
  owner = await registerUser(server);
  project = await createProject(server, owner);
});
afterAll(async () => {
  await server?.stop();
  for (const dir of sandboxes) rmSync(dir, { recursive: true, force: true });
});

const unique = () => crypto.getRandomValues(new Uint8Array(64));
const packagePath = (id: string) => `/api/projects/${project.id}/packages/${id}`;

/** The package is still an upload: no index, no chunk rows, none of its chunks stored, no prepare job. */
async function expectNothingStored(id: string, contents: Uint8Array[]): Promise<void> {
  const row = (await (await server.fetch(packagePath(id), { token: owner.token })).json()) as { status: string; indexHash: string | null };
  expect(row.status).toBe('uploading');
  expect(row.indexHash ?? null).toBeNull();
  expect(await server.deps.storage.stat(indexKey(id))).toBeUndefined();
  expect(await server.deps.db.select().from(packageChunks).where(eq(packageChunks.packageId, id))).toEqual([]);
  for (const content of contents) expect(await storedChunkRow(server, 0, toHex(sha256(content)), content.length)).toBeUndefined();
  expect(await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'package_prepare'), eq(jobs.dedupeKey, `package:${id}`)))).toEqual([]);
}

type RefusalBody = { code: string; message: string; details: { archiveError: string; path: string } };

async function refusal(response: Response): Promise<RefusalBody> {
  expect(response.status).toBe(400);
  return (await response.json()) as RefusalBody;
}

/** A sandbox with the game folder two levels down, so '../../x' from the folder stays inside the sandbox. */
function sandboxWithGame(): { sandbox: string; game: string } {
  const sandbox = mkdtempSync(join(tmpdir(), 'cartridge-unzip-'));
  sandboxes.push(sandbox);
  const game = join(sandbox, 'a', 'b', 'game');
  mkdirSync(game, { recursive: true });
  return { sandbox, game };
}

/** Everything in the sandbox outside the game folder (its parents excluded). */
function outsideGame(sandbox: string, game: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (path === game) continue;
      if (game.startsWith(`${path}/`) && entry.isDirectory()) walk(path);
      else found.push(relative(sandbox, path));
    }
  };
  walk(sandbox);
  return found;
}

async function zipOf(id: string): Promise<Uint8Array> {
  const { status, bytes } = await fetchBytes(await downloadUrl(server, `${packagePath(id)}/download?filter=zip`, owner.token));
  expect(status).toBe(200);
  return bytes;
}

function unzipInto(zip: Uint8Array, name: string, folder: string, sandbox: string): void {
  const file = join(sandbox, name);
  writeFileSync(file, zip);
  const run = Bun.spawnSync(['/usr/bin/unzip', '-o', '-q', file, '-d', folder], { timeout: 20_000 });
  expect(run.exitCode).toBe(0);
}

describe('finalize refuses symlinks leading out of the package (item 5)', () => {
  test.each([
    ['passwd', '../../../../etc/passwd'],
    ['passwd', '/etc/passwd'],
    ['windows', 'C:\\Windows'],
    ['d/up', '../..'],
  ])('%s → %s: 400 path_outside_target naming the link, the package stays an upload with nothing stored', async (path, target) => {
    const content = unique();
    const tree = createTree();
    addFile(tree, 'd/keep.bin', bytesSource(content));
    addSymlink(tree, path, target);
    const { id, finalize } = await sendArchive(server, owner, project.id, await packIgnoringLinkRule(tree));
    const body = await refusal(finalize);
    expect(body).toMatchObject({ code: 'bad_param', details: { archiveError: 'path_outside_target', path } });
    expect(body.message).toContain('path_outside_target');
    expect(body.message).toContain(`'${path}'`);
    await expectNothingStored(id, [content]);
  });
});

describe('finalize limits names to 255 bytes and paths to 4096 (item 8)', () => {
  /** 16 directories of 240 bytes and a last name making the whole path `total` bytes long. */
  const namesOfPath = (total: number) => [...Array.from({ length: 16 }, (_, i) => String.fromCharCode(97 + i).repeat(240)), 'z'.repeat(total - 16 * 241)];

  test('a 100,000-byte name: 400 invalid_entry with the path (shortened) and nothing stored', async () => {
    const content = unique();
    const archive = craftArchive(nestedFileIndex(['x'.repeat(100_000)], content), { data: content });
    const { id, finalize } = await sendArchive(server, owner, project.id, archive);
    const text = await finalize.text();
    expect(finalize.status).toBe(400);
    expect(text.length).toBeLessThan(10_000); // the 100 KB path is shortened in the message and the details
    const body = JSON.parse(text) as RefusalBody;
    expect(body).toMatchObject({ code: 'bad_param', details: { archiveError: 'invalid_entry' } });
    expect(body.details.path.startsWith('xxxxxxxx')).toBe(true);
    expect(body.message).toContain('100000 bytes');
    await expectNothingStored(id, [content]);
  });

  test.each([
    ['a 256-byte name', ['dir', 'n'.repeat(256)]],
    ['a 4097-byte path', namesOfPath(4097)],
  ])('%s is refused with invalid_entry naming it', async (_, names) => {
    const content = unique();
    const { id, finalize } = await sendArchive(server, owner, project.id, craftArchive(nestedFileIndex(names, content), { data: content }));
    expect(await refusal(finalize)).toMatchObject({ code: 'bad_param', details: { archiveError: 'invalid_entry', path: names.join('/') } });
    await expectNothingStored(id, [content]);
  });

  test('a 255-byte name and a 4096-byte path are accepted, and their ZIPs hold them intact', async () => {
    const name = `dir/${'n'.repeat(255)}`;
    const path = namesOfPath(4096).join('/');
    const { sandbox } = sandboxWithGame();
    for (const [label, file] of [['name', name], ['path', path]] as const) {
      const { pkg } = await uploadTree(server, owner, project.id, { files: { [file]: { content: label } } });
      expect(pkg.status).toBe('ready');
      const zip = join(sandbox, `${label}.zip`);
      await Bun.write(zip, await zipOf(pkg.id));
      const listed = Bun.spawnSync(['python3', '-c', 'import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint([i.filename for i in z.infolist() if not i.is_dir()][0])', zip], { timeout: 20_000 });
      expect(listed.exitCode).toBe(0);
      expect(listed.stdout.toString().trim()).toBe(file);
    }
    // Info-ZIP's name buffer holds 4095 bytes (PATH_MAX with its NUL), so only the name is tried with unzip.
    const tested = Bun.spawnSync(['/usr/bin/unzip', '-t', join(sandbox, 'name.zip')], { timeout: 20_000 });
    expect(tested.stdout.toString()).toContain('No errors detected');
    expect(tested.exitCode).toBe(0);
  });
});

describe('finalize and the ZIP writer refuse bidirectional controls in names (issue 28)', () => {
  test.each([
    ['202E', '\u202e'],
    ['202A', '\u202a'],
    ['2066', '\u2066'],
    ['2069', '\u2069'],
    ['200F', '\u200f'],
    ['061C', '\u061c'],
  ])('U+%s in a name: 400 invalid_entry naming the path (escaped in the message), nothing stored', async (code, control) => {
    const content = unique();
    const names = ['shots', `photo${control}gnp.exe`];
    const { id, finalize } = await sendArchive(server, owner, project.id, craftArchive(nestedFileIndex(names, content), { data: content }));
    const body = await refusal(finalize);
    expect(body).toMatchObject({ code: 'bad_param', details: { archiveError: 'invalid_entry', path: names.join('/') } });
    const escaped = `\\u${code}`;
    expect(body.message).toContain(`at 'shots/photo${escaped}gnp.exe'`);
    expect(body.message).toContain('bidirectional control');
    expect(body.message).not.toContain(control);
    await expectNothingStored(id, [content]);
  });

  test('an index holding such a name (stored before the rule, or built in memory) never becomes a ZIP', async () => {
    const { pkg } = await uploadTree(server, owner, project.id, { files: { 'game.txt': { content: 'game' }, 'photo.png': { content: 'png' } } });
    const index = await readPackageIndex(server.deps, pkg.id);
    const entry = index.root.entries.get('photo.png')!;
    index.root.entries.delete('photo.png');
    entry.name = 'photo\u202egnp.exe';
    index.root.entries.set(entry.name, entry);
    expect(() => zipLayout(index, new Uint32Array(2))).toThrow(expect.objectContaining({ code: 'invalid_entry', path: 'photo\u202egnp.exe', message: expect.stringContaining("name 'photo\\u202Egnp.exe' holds the bidirectional control U+202E") }));
  });
});

describe('the two-version symlink chain against the real unzip (item 5)', () => {
  test('version 1 (saves → ../../escaped) is refused, so version 2 (saves/pwned.txt) cannot write through it', async () => {
    const v1 = createTree();
    addFile(v1, 'game.txt', bytesSource(new TextEncoder().encode('v1')));
    addSymlink(v1, 'saves', '../../escaped');
    const refused = await sendArchive(server, owner, project.id, await packIgnoringLinkRule(v1));
    expect(await refusal(refused.finalize)).toMatchObject({ details: { archiveError: 'path_outside_target', path: 'saves' } });

    // What the server does accept: a link that stays inside, then the probe through it, both unzipped -o.
    const inside = await uploadTree(server, owner, project.id, { files: { 'game.txt': { content: 'v1' }, 'data/keep.txt': { content: 'k' } }, symlinks: { saves: 'data' } });
    const probe = await uploadTree(server, owner, project.id, { files: { 'saves/pwned.txt': { content: 'pwned' } } });
    const { sandbox, game } = sandboxWithGame();
    unzipInto(await zipOf(inside.pkg.id), 'v1.zip', game, sandbox);
    unzipInto(await zipOf(probe.pkg.id), 'v2.zip', game, sandbox);
    expect(existsSync(join(sandbox, 'a', 'escaped'))).toBe(false);
    expect(outsideGame(sandbox, game).sort()).toEqual(['v1.zip', 'v2.zip']);
    expect(readFileSync(join(game, 'data', 'pwned.txt'), 'utf8')).toBe('pwned');
  }, 60_000);

  test('a stored index holding such a link (stored before the rule) never becomes a ZIP with the link', async () => {
    const files = { 'game.txt': { content: 'old' }, 'data/keep.txt': { content: 'kept' } };
    const { pkg } = await uploadTree(server, owner, project.id, { files, symlinks: { saves: 'data' } });
    const [prepare] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'package_prepare'), eq(jobs.dedupeKey, `package:${pkg.id}`)));
    expect((await waitForJob(server, prepare!.id)).status).toBe('succeeded');

    // The index as an older server stored it: same files, the link leading out (written with the low-level encoder).
    const old = createTree();
    for (const [path, file] of Object.entries(files)) addFile(old, path, bytesSource(new TextEncoder().encode(file.content)));
    addSymlink(old, 'saves', '../../escaped');
    const indexBytes = concatBytes(encodeIndex(await indexTree(old, { chunking: 1, compression: 0 })));
    const indexHash = toHex(sha256(indexBytes));
    await server.deps.storage.put(indexKey(pkg.id), indexBytes);
    await server.deps.db.update(packages).set({ indexHash }).where(eq(packages.id, pkg.id));
    // A ZIP cached by the older writer (its key had no rules version) must not be served either.
    const stale = new TextEncoder().encode('PK stale ZIP made under the old rules');
    await server.deps.fileCache.ensure(`${pkg.id}-${indexHash.slice(0, 16)}.zip`, stale.length, () => new Blob([stale]).stream());

    const index = await readPackageIndex(server.deps, pkg.id);
    expect(() => zipLayout(index, new Uint32Array(2))).toThrow(expect.objectContaining({ code: 'path_outside_target', path: 'saves' }));
    expect(await preparePackageDownloads(server.deps, pkg.id).then(() => 'made', (error: { code?: string }) => error.code)).toBe('path_outside_target');

    logLines.length = 0;
    const url = await downloadUrl(server, `${packagePath(pkg.id)}/download?filter=zip`, owner.token);
    const answer = await fetchBytes(url);
    expect(answer.status).toBe(500);
    expect(JSON.parse(new TextDecoder().decode(answer.bytes))).toMatchObject({ code: 'unexpected_error' });
    expect(logLines.some((line) => line.includes("symlink 'saves'") && line.includes('path_outside_target'))).toBe(true);
  }, 60_000);
});
