/**
 * Mutation fuzzer for the archive reader (`bun run fuzz:archive`).
 *
 *   --count N      inputs to run (default 20000)
 *   --seed S       run seed (default: random, printed); a run is reproducible from its seed and count
 *   --seconds T    stop after T seconds even if fewer than N inputs ran
 *   --workers W    worker threads (default: 2, or 1 on a single core)
 *   --timeout-ms M an input running longer than this is a hang (default 10000)
 *   --lenient      accepted non-canonical inputs (bytes the writer would never produce) are notes, not failures
 *   --only N       run input N of the seed in this process and print what happened
 *   --replay FILE  read a base64 reproducer and print what the reader does with it
 *
 * Exit status 1 when there is a finding: an exception other than ArchiveError, an ArchiveError code
 * outside the catalogue, a hang, a wrong result, runaway memory, or an accepted input that is not byte
 * for byte what the writer makes of its content. Reproducers go to /tmp/archive-fuzz.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readArchive, toHex, ArchiveError } from '../../src/shared/archive/index.ts';
import { buildCorpus } from './archive/corpus.ts';
import { executeInput } from './archive/execute.ts';
import { makeInput } from './archive/mutate.ts';
import { fatalFindings, runFuzz, summarise } from './archive/runner.ts';

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    count: { type: 'string' },
    seed: { type: 'string' },
    seconds: { type: 'string' },
    workers: { type: 'string' },
    'timeout-ms': { type: 'string' },
    lenient: { type: 'boolean' },
    only: { type: 'string' },
    replay: { type: 'string' },
  },
});

function positiveNumber(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} needs a non-negative number, got '${text}'`);
  return value;
}

const seed = positiveNumber(values.seed, 'seed') ?? Math.floor(Math.random() * 2 ** 31);

if (values.replay !== undefined) {
  const bytes = new Uint8Array(Buffer.from(readFileSync(values.replay, 'utf8').trim(), 'base64'));
  console.log(`replaying ${bytes.length} bytes from ${values.replay} (whole stream, Bun adapters, no base chunks)`);
  try {
    const result = await readArchive(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream());
    let chunks = 0;
    for await (const chunk of result.chunks()) chunks += chunk.bytes.length > 0 ? 1 : 0;
    console.log(`read OK: index ${toHex(result.indexHash)}, ${chunks} chunks`);
  } catch (error) {
    console.log(error instanceof ArchiveError ? `ArchiveError ${error.code}: ${error.message}` : error);
  }
  process.exit(0);
}

if (values.only !== undefined) {
  const number = positiveNumber(values.only, 'only') ?? 0;
  const input = makeInput(await buildCorpus(1), seed, number);
  console.log(`input ${number} of seed ${seed}: ${input.recipe.join(' | ')}; ${input.bytes.length} bytes, split ${input.split}` +
    `${input.failAfter === undefined ? '' : `, stream fails after ${input.failAfter}`}${input.webAdapters ? ', web adapters' : ''}`);
  console.log(await executeInput(input, seed));
  process.exit(0);
}

const count = positiveNumber(values.count, 'count') ?? 20_000;
const seconds = positiveNumber(values.seconds, 'seconds');
const workers = positiveNumber(values.workers, 'workers');
const timeoutMs = positiveNumber(values['timeout-ms'], 'timeout-ms');
console.log(`fuzz:archive seed ${seed}, up to ${count} inputs${seconds === undefined ? '' : ` or ${seconds} s`}`);
const summary = await runFuzz({
  count,
  seed,
  ...(seconds === undefined ? {} : { seconds }),
  ...(workers === undefined ? {} : { workers }),
  ...(timeoutMs === undefined ? {} : { timeoutMs }),
  lenient: values.lenient === true,
  onFinding(finding) {
    console.log(`${finding.fatal ? 'FINDING' : 'note'} ${finding.kind} at input ${finding.number}: ${finding.recipe}`);
    console.log(`  ${finding.message.split('\n').join('\n  ')}`);
    console.log(`  reproducer: ${finding.reproducerPath}  (bun run fuzz:archive --seed ${seed} --only ${finding.number})`);
  },
  onProgress(done) {
    console.log(`  … ${done} inputs`);
  },
});
const outcomes = Object.entries(summary.outcomes).sort((a, b) => b[1] - a[1]).map(([key, value]) => `${key} ${value}`).join(', ');
console.log(`outcomes: ${outcomes}`);
console.log(`slowest input: ${summary.slowestMs.toFixed(1)} ms (--seed ${seed} --only ${summary.slowestNumber})`);
console.log(summarise(summary));
process.exit(fatalFindings(summary).length > 0 ? 1 : 0);
