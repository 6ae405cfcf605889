/**
 * How fast a package's ZIP is made into the download cache (`bun run bench:zip-file`), the work of the
 * package_prepare job right after a push and of a cold download that finds no file yet. The same
 * package, in the same process, alternately made the two ways the server has:
 * - copied from the packs through one reused window (chunks/chunk-copier.ts, the file store's way);
 * - streamed from the chunks, a buffer each (chunk-reader.ts, the S3 store's way), which is what the
 *   file store did before.
 * Prints MB/s of each (median of BENCH_ZIP_ROUNDS, 3 by default), the ratio, and the process's RSS growth
 * over each way. The package: BENCH_ZIP_MB MiB (256 by default) in 8 MiB files, 80 % incompressible,
 * 20 % text (zstd chunks), CRC-32s known as finalize stores them.
 */
import { randomBytes } from 'node:crypto';
import { cachedZipFile } from '../../src/server/domains/packages/downloads/download-files.ts';
import { findPackageRow } from '../../src/server/domains/packages/records/package-rows.ts';
import { registerUser } from '../support/accounts.ts';
import { uploadPackage, waitForJob } from '../support/packages.ts';
import { createProject } from '../support/projects.ts';
import { startTestServer } from '../support/server.ts';
import { jobs } from '../../src/server/db/schema/index.ts';
import { and, eq } from 'drizzle-orm';
import { formatRatio, positiveNumber } from './support.ts';

const MiB = 1024 * 1024;
const sizeMiB = positiveNumber('BENCH_ZIP_MB', 256);
const rounds = positiveNumber('BENCH_ZIP_ROUNDS', 3);

function buildFiles(): Record<string, Uint8Array | string> {
  const files: Record<string, Uint8Array | string> = {};
  const count = Math.max(1, Math.round(sizeMiB / 8));
  for (let i = 0; i < count; i++) {
    files[`data/part-${i}.bin`] = i % 5 === 4 ? `level ${i} data `.repeat(Math.ceil((8 * MiB) / 8)).slice(0, 8 * MiB) : new Uint8Array(randomBytes(8 * MiB));
  }
  return files;
}

const server = await startTestServer({ QUOTA_PACKAGE_SIZE: '0', LOG_LEVEL: 'silent' });
try {
  const owner = await registerUser(server);
  const project = await createProject(server, owner);
  const files = buildFiles();
  const pkg = await uploadPackage(server, owner, project.id, files, { compression: 1 });
  // The build's bytes go, as in a server (which never holds a build): a heap holding them makes every
  // collection the transient-bytes pacing asks for cost far more than the server's. Emptied, not just
  // dropped: JavaScriptCore scans the stack conservatively and may keep the object alive.
  for (const name of Object.keys(files)) delete files[name];
  const [job] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'package_prepare'), eq(jobs.dedupeKey, `package:${pkg.id}`)));
  if (job) await waitForJob(server, job.id);
  const row = (await findPackageRow(server.deps.db, pkg.id))!;
  const openFile = server.deps.storage.openFile;
  const storage = server.deps.storage as { openFile?: typeof openFile };
  const results = { copied: [] as number[], streamed: [] as number[] };
  const growth = { copied: 0, streamed: 0 };
  let bytes = 0;
  for (let round = 0; round < rounds; round++) {
    for (const way of ['copied', 'streamed'] as const) {
      storage.openFile = way === 'copied' ? openFile : undefined;
      await server.deps.fileCache.forget(pkg.id);
      Bun.gc(true);
      const rssBefore = process.memoryUsage.rss();
      const started = performance.now();
      const path = await cachedZipFile(server.deps, row, true);
      const ms = performance.now() - started;
      bytes = Bun.file(path!).size;
      results[way].push(ms);
      growth[way] = Math.max(growth[way], process.memoryUsage.rss() - rssBefore);
    }
  }
  storage.openFile = openFile;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const rate = (ms: number) => `${Math.round(bytes / 1e6 / (ms / 1000))} MB/s`;
  const copied = median(results.copied);
  const streamed = median(results.streamed);
  console.log(
    `zip-file ${sizeMiB} MiB: copied from the packs ${formatRatio(streamed / copied)} the streamed way (copied ${rate(copied)}, ${Math.round(copied)} ms; ` +
      `streamed ${rate(streamed)}, ${Math.round(streamed)} ms; median of ${rounds}; ZIP of ${Math.round(bytes / MiB)} MiB, 20 % zstd chunks)`,
  );
  console.log(`zip-file ${sizeMiB} MiB RSS growth while making the file: copied ${Math.round(growth.copied / 1e6)} MB, streamed ${Math.round(growth.streamed / 1e6)} MB`);
} finally {
  await server.stop();
}
