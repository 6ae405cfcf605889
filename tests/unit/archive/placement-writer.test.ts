import { afterEach, expect, test } from 'bun:test';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlacementWriter } from '../../../src/shared/archive/placement-writer.ts';
import { fillPseudoRandom } from './support.ts';

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'placement-writer-'));
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function errorOf(action: () => unknown): NodeJS.ErrnoException {
  try {
    action();
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
  throw new Error('expected a throw');
}

test('create makes a new file with its exact mode and size, and refuses an existing name or a planted link', () => {
  const dir = tempDir();
  const writer = new PlacementWriter();
  writer.create(join(dir, 'run'), 0o755, 10);
  writer.create(join(dir, 'data'), 0o644);
  writer.write(join(dir, 'data'), 0, new TextEncoder().encode('abc'));
  writer.closeAll();
  expect(statSync(join(dir, 'run')).mode & 0o777).toBe(0o755);
  expect(statSync(join(dir, 'run')).size).toBe(10);
  expect(readFileSync(join(dir, 'data'), 'utf8')).toBe('abc');

  writeFileSync(join(dir, 'outside'), 'keep');
  symlinkSync(join(dir, 'outside'), join(dir, 'planted'));
  expect(errorOf(() => writer.create(join(dir, 'planted'), 0o644)).code).toBe('EEXIST');
  expect(errorOf(() => writer.create(join(dir, 'data'), 0o644)).code).toBe('EEXIST');
  expect(readFileSync(join(dir, 'outside'), 'utf8')).toBe('keep');
  expect(lstatSync(join(dir, 'planted')).isSymbolicLink()).toBe(true);
});

test('writes land at their offsets across more files than the handle cache holds (evicted and reopened)', () => {
  const dir = tempDir();
  const writer = new PlacementWriter({ maxOpenFiles: 2 });
  const expected = new Map<string, Uint8Array>();
  for (let f = 0; f < 6; f++) {
    const bytes = new Uint8Array(300_000 + f);
    fillPseudoRandom(bytes, f + 1);
    const path = join(dir, `f${f}`);
    expected.set(path, bytes);
    writer.create(path, 0o644);
  }
  // Back to front, jumping between files: every write reopens a file the cache closed.
  for (let offset = 280_000; offset >= 0; offset -= 40_000) {
    for (const [path, bytes] of expected) writer.write(path, offset, bytes.subarray(offset, offset === 280_000 ? bytes.length : offset + 40_000));
  }
  writer.closeFile([...expected.keys()][0]!);
  writer.closeAll();
  for (const [path, bytes] of expected) expect(Buffer.compare(readFileSync(path), Buffer.from(bytes))).toBe(0);
});

test('a write to a file that cannot take it throws the system error', () => {
  if (!existsSync('/dev/full')) return;
  const writer = new PlacementWriter();
  expect(errorOf(() => writer.write('/dev/full', 0, new Uint8Array(100)))).toMatchObject({ code: 'ENOSPC' });
  writer.closeAll();
});
