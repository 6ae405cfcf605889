import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { localAppPlatforms, type LocalAppDownloads, type LocalAppPlatform } from '../../../shared/schemas/local-helper.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';

/**
 * The local companion app (src/helper) offered for download (spec §2 'local': the page links a build for
 * each platform): the files `cartridge-helper-<platform>` of LOCAL_APP_DIR (config.localApp.dir), which
 * `npm run build:helper` fills and `npm run build` ships beside the binary. Public: players download it
 * without an account.
 *
 * From source with the default folder (config.localApp.buildOnDemand), the build of the server's own
 * platform is made on the first request that needs it when it is missing, so `npm start` offers a
 * working download with no extra step. Only that one: the others need another platform's Bun runtime,
 * which a server may not be able to download. One build per folder at a time (every request waits for
 * the running one); a failed build is not retried for a minute (the listing then leaves the platform out
 * and its download answers 503 not_supported).
 */

export type LocalAppFile = { platform: LocalAppPlatform; fileName: string; path: string; size: number; modified: number };

/** cartridge-helper-<platform>, .exe for Windows. */
export function localAppFileName(platform: LocalAppPlatform): string {
  return `cartridge-helper-${platform}${platform.startsWith('windows-') ? '.exe' : ''}`;
}

function isLocalAppPlatform(value: string): value is LocalAppPlatform {
  return (localAppPlatforms as readonly string[]).includes(value);
}

/** This process's own platform in the download names, if the helper is built for it. */
export function hostLocalAppPlatform(platform: string = process.platform, arch: string = process.arch): LocalAppPlatform | undefined {
  const name = `${platform === 'win32' ? 'windows' : platform}-${arch}`;
  return isLocalAppPlatform(name) ? name : undefined;
}

/** Builds `platform`'s file into `dir`; rejects with a short reason. */
export type LocalAppBuilder = (platform: LocalAppPlatform, dir: string) => Promise<void>;

const sourceRoot = resolve(import.meta.dir, '..', '..', '..', '..');
const buildHelperScript = join(sourceRoot, 'src', 'tools', 'build-helper.ts');
const buildTimeoutMs = 5 * 60_000;
const failedBuildRetryMs = 60_000;

/**
 * `bun src/tools/build-helper.ts --outdir <dir>` in the source tree: it builds the host's platform (the
 * only one built on demand) and moves the file into place when whole.
 */
const spawnHelperBuild: LocalAppBuilder = async (platform, dir) => {
  if (!existsSync(buildHelperScript)) throw new Error('src/tools/build-helper.ts is missing');
  if (platform !== hostLocalAppPlatform()) throw new Error(`only ${hostLocalAppPlatform() ?? 'the host platform'} is built on demand`);
  const child = Bun.spawn([process.execPath, buildHelperScript, '--outdir', dir], {
    cwd: sourceRoot,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, NODE_ENV: 'production' },
    timeout: buildTimeoutMs,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`build-helper exited with ${child.signalCode ?? code}: ${(stderr || stdout).trim().slice(-2000)}`);
};

type BuildState = { running?: Promise<void>; failed?: { at: number; reason: string } };
const buildStates = new Map<string, BuildState>();
let builder: LocalAppBuilder = spawnHelperBuild;

/** Tests: replace the build (returns a function putting the real one back) and forget past builds. */
export function setLocalAppBuilder(replacement: LocalAppBuilder): () => void {
  builder = replacement;
  buildStates.clear();
  return () => {
    builder = spawnHelperBuild;
    buildStates.clear();
  };
}

/**
 * The file of `platform` in the folder, or undefined; a folder, a link to one or anything but a regular
 * file does not count. `platform` must already be one of localAppPlatforms: only then is a path made.
 */
async function statPlatform(dir: string, platform: LocalAppPlatform): Promise<LocalAppFile | undefined> {
  const fileName = localAppFileName(platform);
  const path = join(dir, fileName);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return { platform, fileName, path, size: info.size, modified: info.mtimeMs };
}

/**
 * Makes the build of `platform` when the server may and it is missing; resolves when there is nothing
 * to do. Rejects (AppError 503 not_supported) when the build fails, or failed less than a minute ago.
 */
async function ensureBuilt(deps: Deps, platform: LocalAppPlatform): Promise<void> {
  const { dir, buildOnDemand } = deps.config.localApp;
  if (!buildOnDemand || platform !== hostLocalAppPlatform()) return;
  if (await statPlatform(dir, platform)) return;
  const state = buildStates.get(dir) ?? {};
  buildStates.set(dir, state);
  if (!state.running) {
    if (state.failed && Date.now() - state.failed.at < failedBuildRetryMs) throw buildFailed(platform);
    const started = performance.now();
    deps.log.info('building the local app on demand', { platform, dir });
    state.running = builder(platform, dir)
      .then(
        () => {
          state.failed = undefined;
          deps.log.info('built the local app', { platform, ms: Math.round(performance.now() - started) });
        },
        (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          state.failed = { at: Date.now(), reason };
          deps.log.error('building the local app failed', { platform, error: reason });
          throw buildFailed(platform);
        },
      )
      .finally(() => {
        state.running = undefined;
      });
  }
  await state.running;
}

function buildFailed(platform: LocalAppPlatform): AppError {
  return new AppError('not_supported', `The local app for ${platform} is not available on this server yet: building it failed (npm run build:helper shows why)`, { platform }, 503);
}

/**
 * GET /local-app: the platforms whose file exists, each with its absolute download URL. A failing
 * on-demand build leaves its platform out rather than failing the list.
 */
export async function listLocalAppDownloads(deps: Deps, appUrl: string): Promise<LocalAppDownloads> {
  const host = hostLocalAppPlatform();
  if (host) await ensureBuilt(deps, host).catch(() => undefined);
  const files = await Promise.all(localAppPlatforms.map((platform) => statPlatform(deps.config.localApp.dir, platform)));
  return {
    downloads: files
      .filter((file) => file !== undefined)
      .map((file) => ({ platform: file.platform, fileName: file.fileName, size: file.size, url: `${appUrl}/api/local-app/${file.platform}` })),
  };
}

/** GET /local-app/{platform}: the file to send; not_found for a name outside the list or a missing file. */
export async function getLocalAppFile(deps: Deps, platform: string): Promise<LocalAppFile> {
  // Checked against the list before anything touches the file system (no path is made of other input).
  if (!isLocalAppPlatform(platform)) throw notFound('platform');
  await ensureBuilt(deps, platform);
  const file = await statPlatform(deps.config.localApp.dir, platform);
  if (!file) throw notFound('platform');
  return file;
}
