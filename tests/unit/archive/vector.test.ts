import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { addFile, addSymlink, bytesSource, concatBytes, createTree, decodeVarint, encodeIndex, fromHex, indexTree, toHex } from '../../../src/shared/archive/index.ts';
import { packToBytes, readBack } from './support.ts';

const docPath = new URL('../../../docs/archive-format.md', import.meta.url);

/** Hex of the test vector as written in docs/archive-format.md (hex before any comment, per line). */
function vectorFromDocs(): string {
  const text = readFileSync(docPath, 'utf8');
  const section = text.slice(text.indexOf('## Test vector'));
  const block = section.slice(section.indexOf('```') + 3, section.indexOf('```', section.indexOf('```') + 3));
  return block
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .map((line) => line.trim().replace(/\s{2,}.*$/, '').replace(/"[^"]*"/g, '').replace(/[^0-9a-f ]/g, ''))
    .join('')
    .replace(/\s+/g, '');
}

function vectorTree() {
  const encoder = new TextEncoder();
  const tree = createTree();
  addFile(tree, 'data/hello.txt', bytesSource(encoder.encode('hello\n')));
  addFile(tree, 'run.sh', bytesSource(encoder.encode('#!/bin/sh\n')), { mode: 1 });
  addSymlink(tree, 'latest', 'data/hello.txt');
  return tree;
}

test('the documented test vector is produced byte for byte', async () => {
  const { bytes } = await packToBytes(vectorTree(), { chunking: 1, compression: 0 });
  const documented = vectorFromDocs();
  expect(documented.length).toBe(184 * 2);
  expect(toHex(bytes)).toBe(documented);
});

test('the documented test vector reads back', async () => {
  const { read, files } = await readBack(fromHex(vectorFromDocs()));
  expect(new TextDecoder().decode(files.get('data/hello.txt'))).toBe('hello\n');
  expect(read.index.root.entries.get('run.sh')?.mode).toBe(1);
  const link = read.index.root.entries.get('latest');
  expect(link?.kind === 'symlink' && link.target).toBe('data/hello.txt');
});

test('the index is written in 1024-byte buffers and its size is declared before it', async () => {
  const tree = createTree();
  for (let i = 0; i < 200; i++) addFile(tree, `dir/file-${String(i).padStart(3, '0')}`, bytesSource(new Uint8Array([i])));
  const index = await indexTree(tree);
  const parts = encodeIndex(index);
  expect(parts.length).toBeGreaterThan(5);
  parts.slice(0, -1).forEach((part) => expect(part.length).toBe(1024));
  const size = parts.reduce((sum, part) => sum + part.length, 0);
  const { bytes } = await packToBytes(index);
  const declared = decodeVarint(bytes, 5);
  expect(declared.value).toBe(size);
  expect(toHex(bytes.subarray(declared.next, declared.next + size))).toBe(toHex(concatBytes(parts)));
});
