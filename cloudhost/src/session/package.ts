import { chmod, lchown, lstat, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { routes, type ApiClient } from '../../../src/shared/api/index.ts';
import type { AgentConfig } from '../config.ts';
import type { ChunkCache, PreparedPackage } from '../package-cache.ts';
import { identityFiles, newMachineId } from '../sandbox.ts';
import { extractedBytes, type SessionDisk, type SessionLayout } from '../session-disk.ts';
import type { SessionControl, StartWork } from './control.ts';

/** chown -R without following links (the extracted game is made the game user's). */
async function chownTree(path: string, uid: number): Promise<void> {
  await lchown(path, uid, uid);
  const info = await lstat(path);
  if (!info.isDirectory()) return;
  for (const name of await readdir(path)) await chownTree(join(path, name), uid);
}

/**
 * A session's package: its addresses asked of the server, fetched through the chunk cache (held there
 * while the session runs, so no prune takes its chunks) into home/game, the session's tmpfs grown to
 * hold it first; its entrypoint an executable file; the session's passwd, group and machine-id; the
 * home made the game user's.
 */
export class SessionPackage {
  private releaseHold: (() => void) | undefined;

  constructor(
    private readonly control: SessionControl,
    private readonly deps: { config: AgentConfig; cache: ChunkCache; api: ApiClient; uid: number | undefined },
    private readonly ref: StartWork['package'],
    private readonly signal: AbortSignal,
    /** Where the time it took is written (the session's figures). */
    private readonly figures: { packageMs?: number },
  ) {}

  async prepare(disk: SessionDisk, entrypoint: string[]): Promise<void> {
    const { config, cache, api } = this.deps;
    const log = this.control.log;
    const layout: SessionLayout = disk.layout;
    const packageStarted = Date.now();
    const ref = this.ref;
    const access = await api.call(routes.cloudPlay.access, {
      params: { project: ref.project, branch: ref.branch, version: ref.version, package: ref.package },
      signal: this.signal,
      retry: { tries: 3, delayMs: 1000 },
    });
    this.control.checkAlive();
    const prepared: PreparedPackage = await cache.prepare(
      { archiveUrl: api.resolveUrl(access.archiveUrl), indexUrl: api.resolveUrl(access.indexUrl), indexHash: access.indexHash ?? ref.indexHash },
      this.signal,
    );
    this.releaseHold = cache.hold(prepared);
    this.control.checkAlive();
    const preparedAt = Date.now();
    await disk.reserve(extractedBytes(prepared.index));
    await cache.extract(prepared, join(layout.home, 'game'));
    this.figures.packageMs = Date.now() - packageStarted;
    log.debug(`package: addresses and chunks ${preparedAt - packageStarted} ms, extracted in ${Date.now() - preparedAt} ms`);
    log.info(
      `package ready in ${this.figures.packageMs} ms (${prepared.stats.chunksFetched} chunks fetched in ${prepared.stats.rangeRequests} requests, ${prepared.stats.chunksCached} cached)`,
    );
    if (config.cacheMaxMb > 0) void cache.prune(config.cacheMaxMb * 1024 * 1024).catch(() => undefined);
    this.control.checkAlive();
    const entryPath = join(layout.home, 'game', ...entrypoint);
    const entryInfo = await lstat(entryPath).catch(() => undefined);
    if (!entryInfo?.isFile()) throw new Error(`the entrypoint ${entrypoint.join('/')} is not a file of the package`);
    await chmod(entryPath, 0o755);
    const uid = this.deps.uid;
    const identity = identityFiles(uid ?? process.getuid?.() ?? 1000, uid ?? process.getgid?.() ?? 1000);
    await writeFile(join(layout.etc, 'passwd'), identity.passwd, { mode: 0o644 });
    await writeFile(join(layout.etc, 'group'), identity.group, { mode: 0o644 });
    await writeFile(join(layout.etc, 'machine-id'), newMachineId(), { mode: 0o644 });
    if (uid !== undefined) {
      await chownTree(layout.home, uid);
      await lchown(layout.tmp, uid, uid);
    }
  }

  /** Lets the chunk cache prune the package's chunks again. */
  release(): void {
    this.releaseHold?.();
  }
}
