import { describe, expect, test } from 'bun:test';
import { addFile, bytesSource, createTree, encodeHeader, walkEntries, readArchive } from '../../../src/shared/archive/index.ts';
import { packToBytes, readBack, rejectionOf, streamOf } from './support.ts';

describe('hostile shapes the fuzzer found costly', () => {
  test('a tree 1000 folders deep round-trips and walks in index order', async () => {
    const tree = createTree();
    // Two-byte names: 1000 levels stay under the 4096-byte path limit (3005 bytes with the file).
    const deep = Array.from({ length: 1000 }, (_, depth) => `d${depth % 10}`).join('/');
    for (const name of ['b.txt', 'a.txt']) addFile(tree, `${deep}/${name}`, bytesSource(new TextEncoder().encode(name)));
    addFile(tree, 'top.txt', bytesSource(new TextEncoder().encode('top')));
    const { bytes } = await packToBytes(tree);
    const { read, files } = await readBack(bytes);
    expect(new TextDecoder().decode(files.get(`${deep}/a.txt`))).toBe('a.txt');
    const walked = [...walkEntries(read.index.root)].map(({ parts }) => parts.join('/'));
    expect(walked).toHaveLength(1003);
    expect(walked[0]).toBe('d0');
    expect(walked.slice(-3)).toEqual([`${deep}/a.txt`, `${deep}/b.txt`, 'top.txt']);
  });

  test('a header declaring a huge index on a short stream ends as archive_ended', async () => {
    const bytes = new Uint8Array([...encodeHeader(false, 200 * 1024 * 1024), 1, 2, 3]);
    expect(await rejectionOf(readArchive(streamOf(bytes, 2)))).toMatchObject({ code: 'archive_ended' });
  });
});
