/**
 * Builds dist/cloudhost.js: the cloud-play host agent (cloudhost/src) with werift, x11 and the shared
 * code in one ES module file for Node >= 22 (`node dist/cloudhost.js --help`), then runs its --help
 * under node as a smoke test.
 *
 *   bun src/tools/build-cloudhost.ts [--outfile path]
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dir, '..', '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--outfile');
const outfile = resolve(root, outIndex === -1 ? join('dist', 'cloudhost.js') : args[outIndex + 1]!);

mkdirSync(dirname(outfile), { recursive: true });
const started = performance.now();
const result = await Bun.build({
  entrypoints: [join(root, 'cloudhost', 'src', 'main.ts')],
  root,
  target: 'node',
  format: 'esm',
  minify: { syntax: true, whitespace: true },
  sourcemap: 'none',
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  banner: '// Cartridge cloud-play host agent (cloudhost/src), built by src/tools/build-cloudhost.ts. Node >= 22.',
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const output = result.outputs[0]!;
await Bun.write(outfile, output);

const help = Bun.spawnSync(['node', outfile, '--help'], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } });
if (help.exitCode !== 0 || !help.stdout.toString().includes('--token-file')) {
  console.error(`node ${relative(root, outfile)} --help failed (${help.exitCode}): ${help.stderr.toString()}`);
  process.exit(1);
}
const megabytes = (statSync(outfile).size / 1024 / 1024).toFixed(1);
console.log(`built ${relative(root, outfile)} (${megabytes} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
