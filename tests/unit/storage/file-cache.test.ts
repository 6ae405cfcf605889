import { afterEach, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileCache, fileCacheBytes } from '../../../src/server/storage/file-cache.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function cacheFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'cartridge-file-cache-'));
  folders.push(folder);
  return join(folder, 'downloads');
}

/** A stream of `count` chunks of `size` bytes filled with `fill`, counting how often it is made. */
function producer(size: number, count: number, fill: number) {
  const made = { times: 0 };
  const produce = () => {
    made.times++;
    let sent = 0;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        await Bun.sleep(1);
        if (sent === count) return controller.close();
        sent++;
        controller.enqueue(new Uint8Array(size).fill(fill));
      },
    });
  };
  return { produce, made };
}

const ago = (ms: number) => new Date(Date.now() - ms);

test('ensure writes a file once; find returns it; concurrent ensures share one write', async () => {
  const dir = cacheFolder();
  const cache = createFileCache({ dir, maxBytes: 1_000_000 });
  expect(await cache.find('a.zip')).toBeUndefined();
  const { produce, made } = producer(1000, 5, 7);
  const [first, second] = await Promise.all([cache.ensure('a.zip', 5000, produce), cache.ensure('a.zip', 5000, produce)]);
  expect(first).toBe(join(dir, 'a.zip'));
  expect(second).toBe(first);
  expect(made.times).toBe(1);
  expect(readFileSync(first!)).toEqual(Buffer.alloc(5000, 7));
  expect(await cache.find('a.zip')).toBe(first);
  expect(await cache.ensure('a.zip', 5000, produce)).toBe(first);
  expect(made.times).toBe(1);
  expect(readdirSync(dir)).toEqual(['a.zip']);
});

test('a producer that yields the wrong size or fails leaves nothing behind', async () => {
  const dir = cacheFolder();
  const cache = createFileCache({ dir, maxBytes: 1_000_000 });
  await expect(cache.ensure('short.zip', 5001, producer(1000, 5, 1).produce)).rejects.toThrow('produced 5000 bytes, expected 5001');
  const failing = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
        controller.error(new Error('chunk store unreachable'));
      },
    });
  await expect(cache.ensure('failed.zip', 10, failing)).rejects.toThrow('chunk store unreachable');
  expect(readdirSync(dir)).toEqual([]);
  // A later try makes it.
  expect(await cache.ensure('short.zip', 5000, producer(1000, 5, 1).produce)).toBe(join(dir, 'short.zip'));
});

test('least recently used files go first when over budget; recently used and partial files stay', async () => {
  const dir = cacheFolder();
  const cache = createFileCache({ dir, maxBytes: 3000 });
  for (const name of ['old.zip', 'older.zip', 'recent.zip']) await cache.ensure(name, 1000, producer(1000, 1, 1).produce);
  utimesSync(join(dir, 'older.zip'), ago(3 * 3600_000), ago(3 * 3600_000));
  utimesSync(join(dir, 'old.zip'), ago(2 * 3600_000), ago(2 * 3600_000));
  // Found (used) files move to the front of the line.
  await cache.ensure('new.zip', 1000, producer(1000, 1, 2).produce);
  expect(readdirSync(dir).sort()).toEqual(['new.zip', 'old.zip', 'recent.zip']);
  utimesSync(join(dir, 'old.zip'), ago(2 * 3600_000), ago(2 * 3600_000));
  utimesSync(join(dir, 'recent.zip'), ago(2 * 3600_000), ago(2 * 3600_000));
  expect(await cache.find('old.zip')).toBeDefined(); // used now: recent.zip is the oldest
  await cache.ensure('newer.zip', 1000, producer(1000, 1, 3).produce);
  expect(readdirSync(dir).sort()).toEqual(['new.zip', 'newer.zip', 'old.zip']);
  expect(fileCacheBytes(dir)).toBe(3000);
  // Another writer's file in progress counts, but only finished files are removed.
  const partial = 'other.zip.partial-0123456789ab';
  writeFileSync(join(dir, partial), Buffer.alloc(1000));
  utimesSync(join(dir, partial), ago(5 * 3600_000), ago(5 * 3600_000));
  utimesSync(join(dir, 'new.zip'), ago(3600_000), ago(3600_000));
  utimesSync(join(dir, 'old.zip'), ago(3600_000), ago(3600_000));
  await cache.ensure('newest.zip', 1000, producer(1000, 1, 4).produce);
  expect(readdirSync(dir).sort()).toEqual(['newer.zip', 'newest.zip', partial].sort());
});

test('files larger than the budget are not kept; a budget of 0 keeps nothing and makes no folder', async () => {
  const dir = cacheFolder();
  const cache = createFileCache({ dir, maxBytes: 1000 });
  const { produce, made } = producer(1000, 2, 1);
  expect(await cache.ensure('huge.zip', 2000, produce)).toBeUndefined();
  expect(made.times).toBe(0);
  const offDir = cacheFolder();
  const off = createFileCache({ dir: offDir, maxBytes: 0 });
  expect(await off.ensure('a.zip', 10, producer(10, 1, 1).produce)).toBeUndefined();
  expect(await off.find('a.zip')).toBeUndefined();
  expect(existsSync(offDir)).toBe(false);
});

test('a restart removes partial files of a crashed writer; forget removes a key prefix; bad keys are refused', async () => {
  const dir = cacheFolder();
  createFileCache({ dir, maxBytes: 10_000, bootId: 'boot-a' });
  writeFileSync(join(dir, 'p1-abc.zip.partial-0123456789ab'), 'half');
  writeFileSync(join(dir, 'p1-abc.zip'), 'whole');
  writeFileSync(join(dir, 'p1-abc.archive'), 'whole');
  writeFileSync(join(dir, 'p2-def.zip'), 'whole');
  const cache = createFileCache({ dir, maxBytes: 10_000, bootId: 'boot-a' });
  expect(readdirSync(dir).sort()).toEqual(['p1-abc.archive', 'p1-abc.zip', 'p2-def.zip']);
  await cache.forget('p1');
  expect(readdirSync(dir)).toEqual(['p2-def.zip']);
  for (const key of ['../escape', 'a/b', '', '.hidden', 'x.partial-1']) await expect(cache.find(key)).rejects.toThrow('bad file cache key');
});

test('files are kept across restarts within one boot, and dropped after a reboot (they were not flushed) or where no boot id is known', async () => {
  const dir = cacheFolder();
  const first = createFileCache({ dir, maxBytes: 10_000, bootId: 'boot-a' });
  const written = await first.ensure('p1-abc.zip', 3000, producer(1000, 3, 9).produce);
  expect(readFileSync(written!)).toEqual(Buffer.alloc(3000, 9));
  expect(readFileSync(`${dir}.boot`, 'utf8')).toBe('boot-a\n');
  // A process restart on the same boot: the file is still good.
  const again = createFileCache({ dir, maxBytes: 10_000, bootId: 'boot-a' });
  expect(await again.find('p1-abc.zip')).toBe(written);
  // The machine rebooted: a file written shortly before a crash may be torn, so none is trusted.
  const rebooted = createFileCache({ dir, maxBytes: 10_000, bootId: 'boot-b' });
  expect(readdirSync(dir)).toEqual([]);
  expect(await rebooted.find('p1-abc.zip')).toBeUndefined();
  expect(readFileSync(`${dir}.boot`, 'utf8')).toBe('boot-b\n');
  await rebooted.ensure('p2-def.zip', 1000, producer(1000, 1, 2).produce);
  // No boot id (not Linux): what an earlier process left cannot be dated, and files are flushed instead.
  const unknown = createFileCache({ dir, maxBytes: 10_000, bootId: null });
  expect(readdirSync(dir)).toEqual([]);
  expect(existsSync(`${dir}.boot`)).toBe(false);
  const flushed = await unknown.ensure('p3-ghi.zip', 1000, producer(1000, 1, 3).produce);
  expect(readFileSync(flushed!)).toEqual(Buffer.alloc(1000, 3));
});
