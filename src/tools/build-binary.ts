/**
 * Builds dist/cartridge: one self-contained executable holding the server, the React client (bundled
 * from the HTML import in serve.ts), the upload worker script, the SQL migrations and PGlite's wasm/data
 * files; then the local companion app (src/tools/build-helper.ts --all: every platform whose Bun runtime
 * can be had) into the local-app folder beside it, where the binary offers it for download
 * (LOCAL_APP_DIR's default there, config.ts). sharp's native part (its addon and libvips, the content images'
 * image library) is copied into the image-library folder beside it, from where the binary loads it
 * (imageLibraryPlugin below); without that folder the binary runs, and image uploads answer not_supported.
 *
 *   bun src/tools/build-binary.ts [--no-bytecode] [--outfile path] [--no-helper | --helper-host-only]
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { buildUploadWorker, hashedUploadWorkerPath } from '../server/http/worker-assets.ts';

const root = resolve(import.meta.dir, '..', '..');
const args = process.argv.slice(2);
const outfile = resolve(root, valueAfter('--outfile') ?? join('dist', 'cartridge'));
const bytecode = !args.includes('--no-bytecode');
const withHelper = !args.includes('--no-helper');
const helperPlatforms = args.includes('--helper-host-only') ? [] : ['--all'];

function valueAfter(flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index === -1 ? undefined : args[index + 1];
}

function formatMegabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// The migrator reads a folder at run time, which the binary does not have: the list goes in as a constant
// (db/migrate.ts uses CARTRIDGE_EMBEDDED_MIGRATIONS when it is defined).
const migrations = readMigrationFiles({ migrationsFolder: join(root, 'drizzle') });

// The user documentation likewise: docs/{lang}/{page}.md as 'lang/page' → markdown (docs.service.ts).
const docs: Record<string, string> = {};
for (const path of new Bun.Glob('*/*.md').scanSync({ cwd: join(root, 'docs') })) {
  docs[path.slice(0, -'.md'.length)] = await Bun.file(join(root, 'docs', path)).text();
}

mkdirSync(dirname(outfile), { recursive: true });
const started = performance.now();

/**
 * sharp loads its addon (@img/sharp-<platform>/lib/sharp-<platform>-<version>.node, which finds libvips
 * through its rpath at ../../sharp-libvips-<platform>/lib) with require(): inside the executable that
 * cannot work (the embedded addon is extracted alone, without libvips, and bare package names do not
 * resolve on disk from a compiled binary). So the module of sharp that loads the addon is replaced with
 * one loading it from <binary folder>/image-library/, where both packages are copied in their own folder
 * layout; the rest of sharp's JavaScript is bundled as usual.
 */
const sharpPlatform = `${process.platform === 'linux' && isMusl() ? 'linuxmusl' : process.platform}-${process.arch}`;
const imageLibraryPackages = [`sharp-${sharpPlatform}`, `sharp-libvips-${sharpPlatform}`];
const sharpAddonFolder = join(root, 'node_modules', '@img', imageLibraryPackages[0]!, 'lib');
const sharpAddon = existsSync(sharpAddonFolder) ? readdirSync(sharpAddonFolder).find((name) => name.endsWith('.node')) : undefined;
if (!sharpAddon) console.warn(`build-binary: no sharp addon for ${sharpPlatform} in node_modules/@img: the binary will answer not_supported to image uploads`);
const imageLibraryPlugin: Bun.BunPlugin = {
  name: 'image-library-beside-the-binary',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]sharp[\\/]dist[\\/]sharp\.mjs$/ }, () => ({
      loader: 'js',
      contents: `
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
const folder = join(dirname(process.execPath), 'image-library');
const addon = join(folder, ${JSON.stringify(imageLibraryPackages[0])}, 'lib', ${JSON.stringify(sharpAddon ?? 'missing.node')});
let sharp;
try {
  sharp = createRequire(import.meta.url)(addon);
} catch (error) {
  throw new Error('the image library (sharp for ${sharpPlatform}) is not beside the executable: ' + addon + ' (' + (error && error.message) + ')');
}
export default sharp;
`,
    }));
  },
};

function isMusl(): boolean {
  try {
    return readdirSync('/lib').some((name) => name.startsWith('ld-musl-'));
  } catch {
    return false;
  }
}

// The upload worker is its own self-contained script (worker-assets.ts): built first, embedded in the
// server, and its hashed path (immutable caching) given to the client bundle (upload-client.ts).
const uploadWorker = await buildUploadWorker({ production: true });
const result = await Bun.build({
  entrypoints: [join(root, 'src', 'server', 'main.ts')],
  root,
  target: 'bun',
  // ESM keeps top-level await (main.ts awaits the boot); bytecode for ESM needs compile, which we do.
  format: 'esm',
  bytecode,
  minify: true,
  splitting: true,
  // The executable embeds the server's source map (stack traces name src/... lines); the .map files
  // Bun also writes next to it are removed below.
  sourcemap: 'linked',
  plugins: [imageLibraryPlugin],
  define: {
    // React and friends pick their production builds, in the server and in the embedded client bundle.
    'process.env.NODE_ENV': JSON.stringify('production'),
    CARTRIDGE_EMBEDDED_MIGRATIONS: JSON.stringify(migrations),
    CARTRIDGE_EMBEDDED_DOCS: JSON.stringify(docs),
    CARTRIDGE_EMBEDDED_UPLOAD_WORKER: JSON.stringify(uploadWorker),
    CARTRIDGE_UPLOAD_WORKER_URL: JSON.stringify(hashedUploadWorkerPath(uploadWorker)),
  },
  compile: {
    outfile,
    // The repository's bunfig.toml (test preload) and a stray one in the working folder are not the server's.
    autoloadBunfig: false,
    autoloadTsconfig: false,
    autoloadPackageJson: false,
  },
});

if (!result.success) {
  for (const log of result.logs) console.error(log);
  console.error('build-binary: failed');
  process.exit(1);
}
for (const log of result.logs) console.warn(log);
for (const output of result.outputs) if (output.kind === 'sourcemap') rmSync(output.path, { force: true });

const seconds = ((performance.now() - started) / 1000).toFixed(1);
const size = statSync(outfile).size;
console.log(
  `build-binary: ${relative(process.cwd(), outfile) || outfile} ${formatMegabytes(size)} (${size} bytes), ` +
    `${migrations.length} migration(s), ${Object.keys(docs).length} docs page(s), upload worker ${hashedUploadWorkerPath(uploadWorker)}, bytecode ${bytecode ? 'on' : 'off'}, ${seconds} s`,
);

// The image library beside the binary (see imageLibraryPlugin): both packages, in their own layout.
const imageLibraryDir = join(dirname(outfile), 'image-library');
rmSync(imageLibraryDir, { recursive: true, force: true });
if (sharpAddon) {
  for (const name of imageLibraryPackages) cpSync(join(root, 'node_modules', '@img', name), join(imageLibraryDir, name), { recursive: true, dereference: true });
  let bytes = 0;
  for (const path of new Bun.Glob('**/*').scanSync({ cwd: imageLibraryDir })) bytes += statSync(join(imageLibraryDir, path)).size;
  console.log(`build-binary: ${relative(process.cwd(), imageLibraryDir) || imageLibraryDir} ${formatMegabytes(bytes)} (sharp and libvips for ${sharpPlatform})`);
}

// The local companion app ships with the binary: its builds go to <binary folder>/local-app.
const helperScript = join(root, 'src', 'tools', 'build-helper.ts');
if (withHelper) {
  if (!existsSync(helperScript)) {
    console.warn('build-binary: src/tools/build-helper.ts not found, the local app is not built (GET /api/local-app will list nothing)');
  } else {
    const helperDir = join(dirname(outfile), 'local-app');
    const helper = Bun.spawnSync([process.execPath, helperScript, ...helperPlatforms, '--outdir', helperDir], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } });
    if (helper.exitCode !== 0) {
      console.error(`build-binary: building the local app failed (exit ${helper.exitCode})`);
      process.exit(1);
    }
  }
}
