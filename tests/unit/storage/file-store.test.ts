import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createBlobStore, createFileBlobStore, type BlobStore } from '../../../src/server/storage/index.ts';
import {
  collect,
  describeBlobStoreContract,
  expectAppError,
  randomBytes,
  readText,
  sha256,
  unknownLengthStream,
} from './blob-store-contract.ts';

async function makeTempFolder(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'cartridge-blobs-'));
}

/** Every file under `folder`, as paths relative to it. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

describeBlobStoreContract('file', async () => {
  const folder = await makeTempFolder();
  const store = createFileBlobStore({ root: join(folder, 'blobs') });
  return {
    store,
    async cleanup() {
      await store.close?.();
      await rm(folder, { recursive: true, force: true });
    },
  };
});

describe('file store', () => {
  let folder: string;
  let root: string;
  let store: BlobStore;
  beforeEach(async () => {
    folder = await makeTempFolder();
    root = join(folder, 'blobs');
    store = createFileBlobStore({ root });
  });
  afterEach(async () => {
    await store.close?.();
    await rm(folder, { recursive: true, force: true });
  });

  test('a key is a file at the same path under the root', async () => {
    await store.put('chunks/ab/abcdef', 'content');
    expect(await readFile(join(root, 'chunks', 'ab', 'abcdef'), 'utf8')).toBe('content');
    expect(await filesUnder(root)).toEqual(['chunks/ab/abcdef']);
  });

  test('a blob is invisible under its key until its put completes', async () => {
    const total = 3 * 1024 * 1024;
    const source = unknownLengthStream(total, { pauseAt: 1024 * 1024 });
    const putting = store.put('uploads/u1/part-1', source.stream);
    await source.paused;
    // Half written: bytes sit in a temp file outside the key space, the key itself is absent.
    expect(await store.stat('uploads/u1/part-1')).toBeUndefined();
    await expectAppError(store.get('uploads/u1/part-1'), 'not_found');
    expect(await collect(store.list(''))).toEqual([]);
    const files = await filesUnder(root);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\.tmp\/[0-9a-f-]+\.tmp$/);
    source.resume();
    expect(await putting).toEqual({ size: total });
    expect(await filesUnder(root)).toEqual(['uploads/u1/part-1']);
  });

  test('a put whose stream errors leaves no file at all', async () => {
    const source = unknownLengthStream(4 * 1024 * 1024, { failAfter: 2 * 1024 * 1024 });
    await expect(store.put('uploads/u2/part-1', source.stream)).rejects.toThrow('source broke');
    expect(await filesUnder(root)).toEqual([]);
    expect(await store.stat('uploads/u2/part-1')).toBeUndefined();
  });

  test('concurrent puts of one key leave no temp files behind', async () => {
    const bodies = Array.from({ length: 6 }, () => randomBytes(300_000));
    await Promise.all(bodies.map((body) => store.put('chunks/cc/same', body)));
    expect(await filesUnder(root)).toEqual(['chunks/cc/same']);
    const stored = sha256(new Uint8Array(await readFile(join(root, 'chunks/cc/same'))));
    expect(bodies.map(sha256)).toContain(stored);
  });

  test('delete prunes folders it leaves empty, but not the root or folders still in use', async () => {
    await store.put('uploads/u3/part-1', 'a');
    await store.put('uploads/u3/part-2', 'b');
    await store.put('uploads/u4/part-1', 'c');
    await store.delete('uploads/u3/part-1');
    expect(await readdir(join(root, 'uploads', 'u3'))).toEqual(['part-2']);
    await store.delete('uploads/u3/part-2');
    expect(await readdir(join(root, 'uploads'))).toEqual(['u4']);
    await store.delete('uploads/u4/part-1');
    expect((await readdir(root)).filter((name) => name !== '.tmp')).toEqual([]);
    await store.put('uploads/u3/part-1', 'back again');
    expect(await readText(await store.get('uploads/u3/part-1'))).toBe('back again');
  });

  test('puts and deletes racing on one folder never lose a completed put', async () => {
    const rounds = 40;
    for (let round = 0; round < rounds; round++) {
      await Promise.all([store.put('race/x/a', `a${round}`), store.delete('race/x/b'), store.put('race/x/b', 'b')]);
      await store.delete('race/x/b');
      await Promise.all([store.delete('race/x/a'), store.put('race/x/c', `c${round}`)]);
      expect(await readText(await store.get('race/x/c'))).toBe(`c${round}`);
      await store.delete('race/x/c');
    }
    expect((await readdir(root)).filter((name) => name !== '.tmp')).toEqual([]);
  });

  test('a key clashing with a folder of other keys fails clearly and leaves nothing behind', async () => {
    await store.put('clash/inner', 'x');
    await expect(store.put('clash', 'y')).rejects.toThrow('clashes');
    await store.put('leaf', 'z');
    await expect(store.put('leaf/below', 'w')).rejects.toThrow('clashes');
    expect(await filesUnder(root)).toEqual(['clash/inner', 'leaf']);
  });

  test('dot-files in the tree are not listed', async () => {
    await store.put('images/a.png', 'png');
    await writeFile(join(root, 'images', '.DS_Store'), 'junk');
    expect(await collect(store.list(''))).toEqual([{ key: 'images/a.png', size: 3 }]);
  });

  test('a read started before a delete still returns the whole blob', async () => {
    const bytes = randomBytes(2 * 1024 * 1024);
    await store.put('held', bytes);
    const stream = await store.get('held');
    await store.delete('held');
    expect(sha256(new Uint8Array(await new Response(stream).arrayBuffer()))).toBe(sha256(bytes));
  });

  test('reads close their file, whether finished or cancelled', async () => {
    const openFiles = async () => (await readdir('/proc/self/fd')).length;
    await store.put('fd/test', randomBytes(2 * 1024 * 1024));
    const before = await openFiles();
    for (let index = 0; index < 20; index++) await new Response(await store.get('fd/test')).arrayBuffer();
    for (let index = 0; index < 20; index++) {
      const reader = (await store.get('fd/test', { start: 10 })).getReader();
      await reader.read();
      await reader.cancel();
    }
    for (let index = 0; index < 20; index++) await (await store.get('fd/test', { start: 5_000_000 })).cancel();
    expect(await openFiles()).toBeLessThanOrEqual(before + 1);
  });

  test('stale temp files from a crash are swept when a store opens; fresh ones are kept', async () => {
    const tempFolder = join(root, '.tmp');
    await mkdir(tempFolder, { recursive: true });
    await writeFile(join(tempFolder, 'old.tmp'), 'left by a crash');
    await writeFile(join(tempFolder, 'new.tmp'), 'another process is writing this');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    await utimes(join(tempFolder, 'old.tmp'), twoDaysAgo, twoDaysAgo);
    const reopened = createFileBlobStore({ root });
    await reopened.close?.();
    expect(await readdir(tempFolder)).toEqual(['new.tmp']);
  });
});

describe('createBlobStore with file: URLs', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await makeTempFolder();
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const writeThrough = async (url: string) => {
    const store = createBlobStore(url, { dataDir: join(folder, 'data') });
    expect(store.kind).toBe('file');
    await store.put('probe/key', url);
    await store.close?.();
  };

  test('file: is DATA_DIR/blobs', async () => {
    await writeThrough('file:');
    expect(await readFile(join(folder, 'data', 'blobs', 'probe', 'key'), 'utf8')).toBe('file:');
  });

  test('file:/absolute and file:///absolute', async () => {
    await writeThrough(`file:${folder}/one`);
    expect(await readFile(join(folder, 'one', 'probe', 'key'), 'utf8')).toBe(`file:${folder}/one`);
    await writeThrough(`file://${folder}/two`);
    expect(await readFile(join(folder, 'two', 'probe', 'key'), 'utf8')).toBe(`file://${folder}/two`);
  });

  test('file:relative is relative to the working directory', async () => {
    const previous = process.cwd();
    process.chdir(folder);
    try {
      await writeThrough('file:relative/blobs');
    } finally {
      process.chdir(previous);
    }
    expect(await readFile(join(folder, 'relative', 'blobs', 'probe', 'key'), 'utf8')).toBe('file:relative/blobs');
  });

  test('file://host and unknown schemes are refused', () => {
    expect(() => createBlobStore('file://server/share', { dataDir: folder })).toThrow('STORAGE_URL');
    expect(() => createBlobStore('ftp://example/blobs', { dataDir: folder })).toThrow('STORAGE_URL');
    expect(() => createBlobStore('', { dataDir: folder })).toThrow('STORAGE_URL');
  });
});
