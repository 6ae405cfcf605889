import { expect, test } from 'bun:test';
import { readAllFiles, readArchive, toHex } from '../../src/shared/archive/index.ts';
import { buildCorpus } from '../fuzz/archive/corpus.ts';
import { fatalFindings, runFuzz, summarise } from '../fuzz/archive/runner.ts';

test('every fuzz seed reads back its files exactly (the mutators start from valid archives)', async () => {
  const corpus = await buildCorpus(1);
  expect(corpus.length).toBeGreaterThanOrEqual(10);
  for (const seed of corpus) {
    const baseChunks = seed.baseChunks;
    const result = await readArchive(new Blob([seed.bytes as Uint8Array<ArrayBuffer>]).stream(), baseChunks === undefined ? {} : { getBaseChunk: (hash) => baseChunks.get(toHex(hash)) });
    const files = await readAllFiles(result);
    expect([...files.keys()].sort()).toEqual([...seed.files.keys()].sort());
    for (const [path, bytes] of seed.files) expect(files.get(path)).toEqual(bytes);
  }
});

test('20,000 mutated archives: each reads or fails with a catalogued ArchiveError, no hang, no runaway memory', async () => {
  const summary = await runFuzz({ count: 20_000, seed: 20_261_123, reproDir: '/tmp/archive-fuzz-unit' });
  console.log(summarise(summary));
  expect(fatalFindings(summary).map((finding) => `${finding.kind} #${finding.number} ${finding.recipe}: ${finding.message}`)).toEqual([]);
  expect(summary.inputs).toBe(20_000);
  // The mutations get past the first checks: successes and most of the catalogue show up.
  expect(summary.outcomes.ok ?? 0).toBeGreaterThan(200);
  for (const code of ['wrong_magic', 'wrong_index_hash', 'wrong_index_size', 'invalid_entry', 'archive_ended', 'wrong_chunk_hash', 'too_many_entries']) {
    expect(summary.outcomes[code] ?? 0).toBeGreaterThan(0);
  }
}, 90_000);

test('the fuzz harness catches a hang and an error thrown outside the read, then carries on', async () => {
  const summary = await runFuzz({ count: 400, seed: 5, workers: 2, timeoutMs: 1500, reproDir: '/tmp/archive-fuzz-unit', inject: { hangAt: 101, throwAt: 250 } });
  expect(summary.counts.hang).toBe(1);
  expect(summary.findings.find((finding) => finding.kind === 'hang')?.number).toBe(101);
  expect(summary.counts.crash).toBe(1);
  expect(fatalFindings(summary)).toHaveLength(2);
  // Every input is accounted for, the two bad ones included, and the run went on past them.
  expect(summary.inputs).toBe(400);
}, 30_000);
