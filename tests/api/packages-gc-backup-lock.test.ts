import { afterAll, beforeAll, expect, test } from 'bun:test';
import { and, eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { jobs } from '../../src/server/db/schema/index.ts';
import { chunkStoreLock } from '../../src/server/storage/chunk-store-lock.ts';
import { sweepStorage } from '../../src/server/domains/packages/chunks/storage-sweep.service.ts';
import { storageSweepJob } from '../../src/server/domains/packages/chunks/storage-sweep.job.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { keysUnder, uploadPackage } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { directJobContext } from '../support/job-context.ts';

/**
 * A backup (`cartridge admin backup`) holds the chunk-store lock shared on its own connection from its
 * dump to its last blob. Package collectors must neither delete under it (the dump still names the
 * package) nor queue behind it (PostgreSQL would then make every later finalize wait for the backup).
 * The lock only means something with other connections: PostgreSQL.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);

let server: TestServer;
let owner: TestUser;
let project: TestProject;
let backup: ReturnType<typeof postgres>;

beforeAll(async () => {
  if (!onPostgres) return;
  server = await startTestServer();
  owner = await registerUser(server);
  project = await createProject(server, owner);
  backup = postgres(server.deps.config.databaseUrl!, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await backup?.end();
  await server?.stop();
});

async function collectionJob(packageId: string) {
  const [row] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'chunk_gc'), eq(jobs.dedupeKey, `package:${packageId}`)));
  return row;
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  for (let tries = 0; tries < 400; tries++) {
    const value = await probe();
    if (value) return value;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

test.skipIf(!onPostgres)('a deleted package is collected after the backup, not during it, without spending its attempts, and uploads go on meanwhile', async () => {
  const doomed = await uploadPackage(server, owner, project.id, { 'doomed.bin': new Uint8Array(200_000).map((_, i) => (i * 7) % 251) });
  // Its derived downloads are made (the prepare job's blobs count among what must survive).
  const prepared = await until('the package_prepare job', async () => {
    const [row] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'package_prepare'), eq(jobs.dedupeKey, `package:${doomed.id}`)));
    return row?.status === 'succeeded' ? row : undefined;
  });
  expect(prepared.status).toBe('succeeded');
  const packsBefore = await keysUnder(server, 'packs/');
  const ownBlobs = await keysUnder(server, `packages/${doomed.id}/`);
  expect(ownBlobs).toContain(`packages/${doomed.id}/torrent`);
  expect(ownBlobs).toContain(`packages/${doomed.id}/index`);

  await backup`select pg_advisory_lock_shared(${chunkStoreLock})`;
  try {
    const deleted = await server.fetch(`/api/projects/${project.id}/packages/${doomed.id}`, { method: 'DELETE', token: owner.token });
    expect(deleted.status).toBe(200);
    // The collector tries the lock for a while, then puts itself back in the queue for later.
    const deferred = await until('the collection to be deferred', async () => {
      const job = await collectionJob(doomed.id);
      return job?.status === 'queued' && job.error !== null ? job : undefined;
    });
    expect(deferred.attempts).toBe(0);
    expect(deferred.error).toContain('a backup holds the chunk store');
    expect(deferred.runAt.getTime()).toBeGreaterThan(Date.now() + 30_000);
    // Nothing the backup may still copy is gone.
    expect(await keysUnder(server, `packages/${doomed.id}/`)).toEqual(ownBlobs);
    expect(await keysUnder(server, 'packs/')).toEqual(packsBefore);

    // A finalize is not held up behind the waiting collector: it takes the lock shared, like the backup.
    const other = await uploadPackage(server, owner, project.id, { 'other.txt': 'still uploading during a backup\n' });
    expect(other.status).toBe('ready');

    // The storage sweep leaves its deletions to its next run and says so.
    await server.deps.storage.put('packages/ghost-of-a-package/index', new Uint8Array(3));
    const swept = await storageSweepJob.execute(server.deps, { id: 'x', kind: 'storage_sweep', payload: {} } as never, directJobContext('x'));
    expect((swept as { leftForNextRun?: string }).leftForNextRun).toContain('a backup holds the chunk store');
    expect(await keysUnder(server, 'packages/ghost-of-a-package/')).toEqual(['packages/ghost-of-a-package/index']);
  } finally {
    await backup`select pg_advisory_unlock_shared(${chunkStoreLock})`;
  }

  // The backup is over: the queued collection runs when due (made due now) and removes the package's blobs.
  const job = await collectionJob(doomed.id);
  await server.deps.db.update(jobs).set({ runAt: sql`now()` }).where(eq(jobs.id, job!.id));
  server.deps.jobSignal.notify();
  const done = await until('the collection to run', async () => {
    const row = await collectionJob(doomed.id);
    return row?.status === 'succeeded' ? row : undefined;
  });
  expect(done.attempts).toBe(1);
  expect(await keysUnder(server, `packages/${doomed.id}/`)).toEqual([]);
  // And the sweep, now free, removes what it had left.
  await sweepStorage(server.deps, Date.now() + 2 * 3600_000);
  expect(await keysUnder(server, 'packages/ghost-of-a-package/')).toEqual([]);
});
