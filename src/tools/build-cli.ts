/**
 * Builds dist/cartridge-cli: the `cartridge` command-line client (login, push, download, status) as
 * one self-contained executable, then runs its --help as a smoke test.
 *
 *   bun src/tools/build-cli.ts [--outfile path]
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dir, '..', '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--outfile');
const outfile = resolve(root, outIndex === -1 ? join('dist', 'cartridge-cli') : args[outIndex + 1]!);

mkdirSync(dirname(outfile), { recursive: true });
const started = performance.now();
const result = await Bun.build({
  entrypoints: [join(root, 'src', 'cli', 'main.ts')],
  root,
  target: 'bun',
  format: 'esm',
  minify: true,
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  compile: { outfile, autoloadBunfig: false, autoloadTsconfig: false, autoloadPackageJson: false, autoloadDotenv: false },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}

const help = Bun.spawnSync([outfile, '--help'], { cwd: dirname(outfile), env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } });
if (help.exitCode !== 0 || !help.stdout.toString().includes('Exit codes:')) {
  console.error(`${relative(root, outfile)} --help failed (${help.exitCode}): ${help.stderr.toString()}`);
  process.exit(1);
}
const megabytes = (statSync(outfile).size / 1024 / 1024).toFixed(1);
console.log(`built ${relative(root, outfile)} (${megabytes} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
