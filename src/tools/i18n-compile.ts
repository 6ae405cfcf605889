/**
 * Compiles locales/*.json into src/shared/i18n/paraglide with paraglide-js. The output is generated, not
 * committed: `npm run i18n` runs this, and the pre-hooks of start, dev, test, typecheck and build do too.
 * It lives in src/shared because both sides speak it: the client's screens and the server's heads of
 * public pages (domains/store/store-page-head.ts) import the same message modules.
 *
 * - Skips the work when nothing that feeds the output changed (hash of settings, locales, paraglide's
 *   version and this file, kept in src/shared/i18n/paraglide/.inputs-hash): ≈ 0.1 s instead of ≈ 5 s.
 * - Writes TypeScript declarations itself. Paraglide's `emitTsDeclarations` runs the TypeScript compiler
 *   over every file (≈ 20 s here); each message module's declaration is instead copied from the JSDoc
 *   types paraglide already wrote into it, and only runtime.js, server.js and registry.js go through
 *   TypeScript (≈ 13 s), reused from the previous output while those files are unchanged.
 * - Fails when the output holds fewer messages than locales/en.json has keys: paraglide only warns
 *   when its storage plugin cannot be loaded (a wrong `modules` path in project.inlang/settings.json)
 *   and then emits no messages at all.
 *
 *   bun src/tools/i18n-compile.ts [--quiet] [--force]   (--quiet: silent only while up to date)
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dir, '../..');
export const projectPath = join(repoRoot, 'project.inlang');
export const localesDir = join(repoRoot, 'locales');
export const outdir = join(repoRoot, 'src/shared/i18n/paraglide');

/** Where the compiler reads and writes; the defaults are the repository's, tests pass others. */
export type CompilePaths = { project: string; locales: string; outdir: string };
const defaultPaths: CompilePaths = { project: projectPath, locales: localesDir, outdir };
/** The installed paraglide-js package folder; undefined without dev dependencies. */
const paraglideDir = (() => {
  try {
    return dirname(dirname(Bun.resolveSync('@inlang/paraglide-js', repoRoot)));
  } catch {
    return undefined;
  }
})();
/** Output files whose declarations go through the TypeScript compiler. */
const runtimeFiles = ['runtime.js', 'server.js', 'registry.js'] as const;

/** Keys of a messages file, without the `$schema` entry. */
export function readMessageKeys(file: string): string[] {
  const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return Object.keys(json).filter((key) => key !== '$schema');
}

function hashInputs(paths: CompilePaths): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(paths.project, 'settings.json')));
  for (const name of readdirSync(paths.locales).filter((file) => file.endsWith('.json')).sort()) {
    hash.update(name).update(readFileSync(join(paths.locales, name)));
  }
  if (paraglideDir) hash.update(readFileSync(join(paraglideDir, 'package.json')));
  hash.update(readFileSync(import.meta.path));
  return hash.digest('hex');
}

/** Names of the compiled message modules (one per message key). */
function listMessageModules(outdir: string): string[] {
  const dir = join(outdir, 'messages');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((file) => file.endsWith('.js') && file !== '_index.js');
}

function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Declaration of one message module, from the JSDoc types paraglide put in it. */
function declareMessageModule(source: string, file: string): string {
  const lines = ["import type { LocalizedString } from '../runtime.js';", 'export type { LocalizedString };'];
  for (const match of source.matchAll(/^\/\*\* @typedef \{(.+)\} (\w+) \*\/$/gm)) {
    if (match[2] !== 'LocalizedString') lines.push(`export type ${match[2]} = ${match[1]};`);
  }
  const exported = [...source.matchAll(/^export const (\w+) = \/\*\* @type \{(.+)\} \*\/ \(/gm)];
  if (exported.length === 0) throw new Error(`no exported message found in ${file}`);
  for (const match of exported) lines.push(`export declare const ${match[1]}: ${match[2]};`);
  return `${lines.join('\n')}\n`;
}

async function declareRuntime(outdir: string, previous: Map<string, { js?: string; dts?: string }>): Promise<void> {
  const sources = Object.fromEntries(runtimeFiles.map((name) => [name, readFileSync(join(outdir, name), 'utf8')]));
  const unchanged = runtimeFiles.every((name) => previous.get(name)?.js === sources[name] && previous.get(name)?.dts);
  let declarations: Record<string, string>;
  if (unchanged) {
    declarations = Object.fromEntries(runtimeFiles.map((name) => [name.replace(/\.js$/, '.d.ts'), previous.get(name)!.dts!]));
  } else {
    // Not in the package's exports map, so imported by path: the same emitter `emitTsDeclarations` uses.
    const { emitTsDeclarations } = (await import(join(paraglideDir!, 'dist/compiler/emit-ts-declarations.js'))) as {
      emitTsDeclarations: (output: Record<string, string>) => Promise<Record<string, string>>;
    };
    declarations = await emitTsDeclarations(sources);
  }
  for (const [name, text] of Object.entries(declarations)) writeFileSync(join(outdir, name), text);
}

function declareMessages(outdir: string): void {
  const dir = join(outdir, 'messages');
  for (const file of listMessageModules(outdir)) {
    writeFileSync(join(dir, file.replace(/\.js$/, '.d.ts')), declareMessageModule(readFileSync(join(dir, file), 'utf8'), file));
  }
  // Re-export files: their JavaScript is valid declaration syntax once the JSDoc typedef is dropped.
  for (const file of [join(dir, '_index.js'), join(outdir, 'messages.js')]) {
    const source = readFileSync(file, 'utf8').replace(/^\/\*\*.*\*\/$/gm, '');
    writeFileSync(file.replace(/\.js$/, '.d.ts'), source);
  }
}

export type CompileResult = { messages: number; skipped: boolean; milliseconds: number };

/** Compiles the project unless its inputs are unchanged; throws when no or too few messages come out. */
export async function compileMessages(options: { force?: boolean; paths?: CompilePaths; onCompile?: () => void } = {}): Promise<CompileResult> {
  const started = performance.now();
  const { project, locales, outdir } = options.paths ?? defaultPaths;
  const hashFile = join(outdir, '.inputs-hash');
  const expected = readMessageKeys(join(locales, 'en.json')).length;
  const inputsHash = hashInputs({ project, locales, outdir });
  if (!options.force && readIfExists(hashFile) === inputsHash && listMessageModules(outdir).length === expected) {
    return { messages: expected, skipped: true, milliseconds: Math.round(performance.now() - started) };
  }
  if (!paraglideDir) {
    // An install without dev dependencies (npm ci --omit=dev) runs what was compiled before, if anything.
    const existing = listMessageModules(outdir).length;
    if (existing > 0) {
      console.warn('i18n: @inlang/paraglide-js is not installed; keeping the existing src/shared/i18n/paraglide');
      return { messages: existing, skipped: true, milliseconds: Math.round(performance.now() - started) };
    }
    throw new Error('@inlang/paraglide-js is not installed (a dev dependency): run npm install');
  }
  options.onCompile?.();
  const previous = new Map(
    runtimeFiles.map((name) => [name, { js: readIfExists(join(outdir, name)), dts: readIfExists(join(outdir, name.replace(/\.js$/, '.d.ts'))) }]),
  );
  const warnings: string[] = [];
  const originalWarn = console.warn;
  // Paraglide reports a plugin that failed to load through console.warn: keep it for the error.
  console.warn = (...args: unknown[]) => {
    warnings.push(args.map(String).join(' '));
    originalWarn(...args);
  };
  // Imported here so that the up-to-date path does not load the inlang SDK.
  const { compile } = await import('@inlang/paraglide-js');
  try {
    await compile({
      project,
      outdir,
      // The client picks the language itself (src/client/lib/i18n) and hands it to paraglide with
      // setLocale(code, { reload: false }); the global variable holds it, the base locale otherwise.
      strategy: ['globalVariable', 'baseLocale'],
      outputStructure: 'message-modules',
      emitTsDeclarations: false,
      emitReadme: false,
      emitPrettierIgnore: false,
      emitGitIgnore: true,
    });
  } finally {
    console.warn = originalWarn;
  }
  const compiled = listMessageModules(outdir).length;
  if (compiled === 0 || compiled < expected) {
    if (existsSync(outdir)) writeFileSync(hashFile, '');
    throw new Error(
      `paraglide compiled ${compiled} messages but locales/en.json has ${expected} keys; ` +
        `check "modules" in project.inlang/settings.json${warnings.length ? `. Warnings: ${warnings.join(' | ')}` : ''}`,
    );
  }
  declareMessages(outdir);
  await declareRuntime(outdir, previous);
  mkdirSync(outdir, { recursive: true });
  writeFileSync(hashFile, inputsHash);
  return { messages: compiled, skipped: false, milliseconds: Math.round(performance.now() - started) };
}

if (import.meta.main) {
  try {
    // --quiet says nothing while the output is up to date; a compile (a first start: ≈ 20 s) is told.
    const quiet = process.argv.includes('--quiet');
    const result = await compileMessages({
      force: process.argv.includes('--force'),
      onCompile: () => console.log('i18n: compiling the translations of locales/ (a first start or changed locales: 20 s to a minute)...'),
    });
    if (!quiet || !result.skipped) {
      console.log(`i18n: ${result.skipped ? 'up to date' : 'compiled'}: ${result.messages} messages in src/shared/i18n/paraglide (${result.milliseconds} ms)`);
    }
  } catch (error) {
    console.error(`i18n: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  // The inlang SDK leaves timers behind that keep the process alive for ≈ 30 s.
  process.exit(0);
}
