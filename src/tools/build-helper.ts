/**
 * Builds the local companion app (src/helper/main.ts) as self-contained executables in dist/local-app/,
 * named `cartridge-helper-<platform>` (`.exe` on Windows): the names the server offers at
 * /api/local-app/{platform}. Each build is checked: the host's binary must answer --version.
 *
 *   bun src/tools/build-helper.ts          the host's platform (linux-x64 here)
 *   bun src/tools/build-helper.ts --all    also every other platform of localAppPlatforms
 *   [--outdir path]
 *
 * Cross-compiling needs the target's Bun runtime. Bun would download it from GitHub; instead it comes
 * from the npm registry (@oven/bun-<os>-<arch> at the version of the installed `bun` package) through
 * `npm pack`, cached in node_modules/.cache/bun-compile-targets, and is passed as executablePath. A
 * platform whose runtime cannot be had is skipped with a one-line reason.
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { localAppPlatforms, type LocalAppPlatform } from '../shared/schemas/local-helper.ts';

const root = resolve(import.meta.dir, '..', '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--outdir');
const outdir = resolve(root, outIndex === -1 ? join('dist', 'local-app') : args[outIndex + 1]!);
const all = args.includes('--all');
const bunVersion: string = (await Bun.file(join(root, 'node_modules', 'bun', 'package.json')).json()).version;
const packageVersion: string = (await Bun.file(join(root, 'package.json')).json()).version;
const cacheDir = join(root, 'node_modules', '.cache', 'bun-compile-targets');

type Target = { platform: LocalAppPlatform; compileTarget: Bun.Build.CompileTarget; npmPackage: string; binary: string; exe: boolean };
const targets: Record<LocalAppPlatform, Target> = {
  'linux-x64': { platform: 'linux-x64', compileTarget: 'bun-linux-x64', npmPackage: '@oven/bun-linux-x64', binary: 'bun', exe: false },
  'linux-arm64': { platform: 'linux-arm64', compileTarget: 'bun-linux-arm64', npmPackage: '@oven/bun-linux-aarch64', binary: 'bun', exe: false },
  'darwin-x64': { platform: 'darwin-x64', compileTarget: 'bun-darwin-x64', npmPackage: '@oven/bun-darwin-x64', binary: 'bun', exe: false },
  'darwin-arm64': { platform: 'darwin-arm64', compileTarget: 'bun-darwin-arm64', npmPackage: '@oven/bun-darwin-aarch64', binary: 'bun', exe: false },
  'windows-x64': { platform: 'windows-x64', compileTarget: 'bun-windows-x64', npmPackage: '@oven/bun-windows-x64', binary: 'bun.exe', exe: true },
};

const hostPlatform = `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}` as LocalAppPlatform;
if (!localAppPlatforms.includes(hostPlatform)) {
  console.error(`build-helper: this machine (${hostPlatform}) is not one of ${localAppPlatforms.join(', ')}`);
  process.exit(1);
}

/** The target's Bun runtime from the npm registry (cached), or a reason why not. */
function targetRuntime(target: Target): { path: string } | { skip: string } {
  const folder = join(cacheDir, `${target.npmPackage.replace('/', '+')}-${bunVersion}`);
  const path = join(folder, 'package', 'bin', target.binary);
  if (existsSync(path)) return { path };
  mkdirSync(folder, { recursive: true });
  const spec = `${target.npmPackage}@${bunVersion}`;
  const pack = Bun.spawnSync(['npm', 'pack', spec, '--pack-destination', folder, '--silent'], { cwd: folder, stdout: 'pipe', stderr: 'pipe', timeout: 300_000 });
  const tarball = pack.stdout.toString().trim().split('\n').pop() ?? '';
  if (pack.exitCode !== 0 || !tarball) return { skip: `npm pack ${spec} failed: ${pack.stderr.toString().trim().split('\n').pop() ?? `exit ${pack.exitCode}`}` };
  const untar = Bun.spawnSync(['tar', '-xzf', join(folder, tarball), '-C', folder, `package/bin/${target.binary}`], { stderr: 'pipe' });
  rmSync(join(folder, tarball), { force: true });
  if (untar.exitCode !== 0 || !existsSync(path)) return { skip: `${spec} holds no bin/${target.binary}: ${untar.stderr.toString().trim()}` };
  return { path };
}

async function build(target: Target): Promise<string | undefined> {
  const outfile = join(outdir, `cartridge-helper-${target.platform}${target.exe ? '.exe' : ''}`);
  let executablePath: string | undefined;
  if (target.platform !== hostPlatform) {
    const runtime = targetRuntime(target);
    if ('skip' in runtime) {
      console.log(`skipped ${target.platform}: ${runtime.skip}`);
      return undefined;
    }
    executablePath = runtime.path;
  }
  // Built beside, then moved: a server serving dist/local-app never sees half a file.
  const partial = `${outfile}.partial`;
  const started = performance.now();
  const result = await Bun.build({
    entrypoints: [join(root, 'src', 'helper', 'main.ts')],
    root,
    target: 'bun',
    format: 'esm',
    minify: true,
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    compile: {
      target: target.compileTarget,
      outfile: partial,
      ...(executablePath ? { executablePath } : {}),
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
      autoloadDotenv: false,
      ...(target.exe ? { windows: { title: 'Cartridge Helper', description: 'Cartridge companion app', version: packageVersion } } : {}),
    },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    rmSync(partial, { force: true });
    throw new Error(`build of ${target.platform} failed`);
  }
  // Windows builds may be written with .exe appended.
  const written = existsSync(partial) ? partial : `${partial}.exe`;
  renameSync(written, outfile);
  if (target.platform === hostPlatform) {
    const check = Bun.spawnSync([outfile, '--version'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } });
    if (check.exitCode !== 0 || check.stdout.toString().trim() !== `cartridge-helper ${packageVersion}`) {
      throw new Error(`${relative(root, outfile)} --version failed (${check.exitCode}): ${check.stdout.toString()}${check.stderr.toString()}`);
    }
  }
  const megabytes = (statSync(outfile).size / 1024 / 1024).toFixed(1);
  console.log(`built ${relative(root, outfile)} (${megabytes} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return outfile;
}

mkdirSync(outdir, { recursive: true });
if (Bun.version !== bunVersion) console.log(`note: running Bun ${Bun.version}, the bun package is ${bunVersion}: cross-compiled runtimes are ${bunVersion}`);
try {
  await build(targets[hostPlatform]);
  if (all) for (const platform of localAppPlatforms) if (platform !== hostPlatform) await build(targets[platform]);
} catch (error) {
  console.error(`build-helper: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
