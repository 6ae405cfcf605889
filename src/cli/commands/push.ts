import { resolve } from 'node:path';
import { findEntry, setEntrypoint, shownPath, splitPath, type CompressionAlgorithm } from '../../shared/archive/index.ts';
import { checkPackage } from '../../shared/packages/checks.ts';
import { programFormatName, programKey } from '../../shared/packages/program-detect.ts';
import { findPrograms, markPrograms } from '../../shared/packages/tree-programs.ts';
import { packageTitle } from '../../shared/packages/package-name.ts';
import { startFileTags } from '../../shared/packages/start-file-tags.ts';
import { sameTags } from '../../shared/packages/same-tags.ts';
import { describeTagProblem, validateTags } from '../../shared/packages/tags.ts';
import { describeFix, describeWarning } from '../../shared/packages/warning-text.ts';
import { nextVersionTitle } from '../../shared/schemas/versions.ts';
import { formatSize } from '../../shared/format/size.ts';
import { routes } from '../../shared/api/routes.ts';
import { fetchBaseIndex } from '../../shared/upload/base-index.ts';
import { createCliApi } from '../api.ts';
import { parseCommandArgs, retryDelayOf } from '../args.ts';
import { requireCredentials } from '../credentials.ts';
import { counted } from '../counted.ts';
import { CliError, exitCodes } from '../errors.ts';
import { readFolderTree } from '../folder-tree.ts';
import type { CliIo } from '../io.ts';
import { currentPackages, packToFile } from '../push-pack.ts';
import { clearPushCache, createStateWriter, openPushCache, readPushState, type PushState } from '../push-state.ts';
import { uploadPackage } from '../push-upload.ts';
import { findBranch, findProject, parseTarget } from '../target.ts';

export const pushUsage = `cartridge push DIR PROJECT/BRANCH [options]
  Packs DIR, uploads it as a package (a patch against the branch's current package with the same
  tags when there is one), creates a version holding it (with the current version's packages of other
  tags) and publishes it to the branch. An interrupted push continues where it stopped when run again.
  --version TITLE        version title (default: the current one incremented, or 1.0.0)
  --description TEXT     version description
  --title TEXT           package title (default: from the tags, e.g. 'Linux x86 64-bit')
  --tags LIST            comma-separated tags, e.g. os:linux,arch:x86,bits:64; required (exit 4
                         without): the store, play and cloud play pick packages by their tags
  --allow-untagged       push an untagged package anyway
  --start-file PATH      the file that starts the game, relative to DIR (--entrypoint PATH: the same)
  --compression zstd|none  chunk compression (default: the base package's, else none)
  --strict               fail (exit 4) when the package checks warn
  --json                 print the result as JSON on stdout`;

function parseTagList(text: string | undefined): string[] {
  const tags = (text ?? '').split(',').map((tag) => tag.trim()).filter(Boolean);
  const result = validateTags(tags);
  if (!result.ok) throw new CliError(exitCodes.usage, `--tags: ${describeTagProblem(result.problem)}`);
  return result.tags;
}

function parseCompression(text: string | undefined): CompressionAlgorithm | undefined {
  if (text === undefined) return undefined;
  if (text === 'zstd') return 1;
  if (text === 'none') return 0;
  throw new CliError(exitCodes.usage, `--compression must be zstd or none, not '${text}'`);
}

/** Names shown in the "marked executable" line before it says how many more. */
const MARKED_SHOWN = 5;

/** "'hopper' (ELF), 'start' (#!) and 3 more" */
function describeMarked(marked: readonly string[][], programs: Awaited<ReturnType<typeof findPrograms>>): string {
  const shown = marked.slice(0, MARKED_SHOWN).map((parts) => `'${shownPath(parts.join('/'))}' (${programFormatName(programs.get(programKey(parts))!.format)})`);
  const more = marked.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** --start-file, or its older name --entrypoint (both given: the same path). */
function startFileOption(startFile: string | undefined, entrypoint: string | undefined): string[] | null {
  if (startFile !== undefined && entrypoint !== undefined && startFile !== entrypoint) {
    throw new CliError(exitCodes.usage, '--start-file and --entrypoint name the same thing: give one of them');
  }
  const path = startFile ?? entrypoint;
  return path ? splitPath(path) : null;
}

/** The refusal of an untagged push: the tags the start file's header names, when it names any, else an example. */
function untaggedError(fromHeader: ReturnType<typeof startFileTags>): CliError {
  if (!fromHeader) return new CliError(exitCodes.checksFailed, 'no --tags given: tag the package (e.g. --tags os:linux,arch:x86,bits:64) or pass --allow-untagged');
  const list = fromHeader.tags.join(',');
  return new CliError(
    exitCodes.checksFailed,
    `no --tags given: the header of the start file '${shownPath(fromHeader.path.join('/'))}' (${programFormatName(fromHeader.format)}) names ${fromHeader.tags.join(', ')}: tag the package (--tags ${list}) or pass --allow-untagged`,
    { details: { suggestedTags: fromHeader.tags } },
  );
}

export async function runPush(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    version: { type: 'string' },
    description: { type: 'string' },
    title: { type: 'string' },
    tags: { type: 'string' },
    'start-file': { type: 'string' },
    entrypoint: { type: 'string' },
    compression: { type: 'string' },
    strict: { type: 'boolean' },
    'allow-untagged': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    io.stdout(`${pushUsage}\n`);
    return exitCodes.ok;
  }
  const [dirArg, targetArg, ...extra] = positionals;
  if (!dirArg || extra.length > 0) throw new CliError(exitCodes.usage, `usage: ${pushUsage.split('\n')[0]}`);
  const target = parseTarget(targetArg, true);
  const tags = parseTagList(values.tags);
  const requestedCompression = parseCompression(values.compression);
  const dir = resolve(io.env.PWD ?? process.cwd(), dirArg);
  const quiet = Boolean(values.json) && !io.isTTY;
  const log = (line: string) => io.stderr(`${line}\n`);

  const folder = await readFolderTree(dir);
  // Files unpacked from a ZIP or copied from a Windows share lose their modes: programs are known by their heads.
  const programs = await findPrograms(folder.tree.root).catch((error: unknown) => {
    throw new CliError(exitCodes.usage, `cannot read '${dir}': ${error instanceof Error ? error.message : String(error)}`);
  });
  const marked = markPrograms(folder.tree.root, programs);
  if (marked.length > 0) log(`marked executable by their content: ${describeMarked(marked, programs)}`);
  let entrypoint = startFileOption(values['start-file'], values.entrypoint);
  if (entrypoint) setEntrypoint(folder.tree, entrypoint);
  // An untagged package is found by nothing that picks packages by tags (the store, play, cloud play,
  // the next push's patch base) and would sit beside the tagged ones of the branch.
  if (tags.length === 0 && !values['allow-untagged']) throw untaggedError(startFileTags(folder.tree.root, entrypoint, programs));

  const credentials = await requireCredentials(io);
  const api = createCliApi({ server: credentials.server, token: credentials.token, io, retryDelayMs: retryDelayOf(io.env) });
  const project = await findProject(api, target.project);
  if (project.userPossibleActions && !project.userPossibleActions.includes('publishVersion')) {
    throw new CliError(exitCodes.auth, `your role in ${project.title} cannot publish versions (insufficient_privileges)`, { code: 'insufficient_privileges' });
  }
  const branch = await findBranch(api, project, target.branch!);
  const current = await currentPackages(api, project.id, branch.currentVersion?.version);
  const base = current.find((item) => item.status === 'ready' && sameTags(item.tags, tags));
  // An update keeps the start file of the package it replaces, unless one is given or it is gone.
  if (!entrypoint && base?.entrypoint && findEntry(folder.tree, base.entrypoint)?.kind === 'file') {
    entrypoint = base.entrypoint;
    setEntrypoint(folder.tree, entrypoint);
    log(`start file '${entrypoint.join('/')}' kept from the package this one updates`);
  }
  const warnings = checkPackage({ tree: folder.tree, tags, entrypoint, programs });
  for (const warning of warnings) log(`warning: ${describeWarning(warning)}${warning.fix ? ` (fix: ${describeFix(warning.fix)})` : ''}`);
  if (values.strict && warnings.length > 0) throw new CliError(exitCodes.checksFailed, `${counted(warnings.length, 'package check', 'package checks')} failed (--strict)`, { details: { warnings: warnings.map((warning) => warning.code) } });

  const cache = await openPushCache(io, { server: credentials.server, dir, project: project.id, branch: branch.id, tags, entrypoint, compression: requestedCompression ?? null, title: values.title ?? null });
  const writer = createStateWriter(cache);
  let state = await readPushState(cache);
  const archiveFile = Bun.file(cache.archivePath);
  const reusable =
    state && state.fingerprint === folder.fingerprint && state.basePackage === (base?.id ?? null) && (await archiveFile.exists()) && archiveFile.size === state.archiveSize;
  if (!reusable || !state) {
    // The earlier run's package can never be finished now: leave the server no orphan (best effort).
    if (state?.upload && !state.upload.finalized) await api.call(routes.packages.delete, { params: { project: project.id, package: state.upload.packageId } }).catch(() => {});
    const baseIndex = base ? await fetchBaseIndex(api, project.id, base.id) : undefined;
    // A patch must use the base's compression: its chunks are reused as the server stores them.
    const compression = baseIndex && (requestedCompression === undefined || requestedCompression === baseIndex.compression) ? baseIndex.compression : (requestedCompression ?? 0);
    const patchBase = baseIndex && baseIndex.compression === compression ? baseIndex : undefined;
    const packed = await packToFile(folder.tree, cache.archivePath, { base: patchBase, compression, quiet, io });
    state = { version: 2, fingerprint: folder.fingerprint, basePackage: patchBase ? base!.id : null, archiveSize: packed.size, patch: Boolean(patchBase) };
    await writer.save(state);
    if (!quiet) log(`packed ${counted(folder.fileCount, 'file', 'files')} (${formatSize(folder.totalSize)}) into ${patchBase ? 'a patch' : 'an archive'} of ${formatSize(packed.size)}`);
  } else if (!quiet) log(`continuing the interrupted push of ${dir}`);

  const pushState: PushState = state;
  const outcome = await uploadPackage(
    { api, io, projectId: project.id, cache, state: pushState, save: (next) => writer.save(next), quiet },
    { title: values.title, tags, entrypoint },
  );

  const versionTitle = values.version ?? nextVersionTitle(branch.currentVersion?.title);
  if (!quiet) log(`publishing version ${versionTitle} to ${branch.title}...`);
  const otherPackages = current.filter((item) => !sameTags(item.tags, tags)).map((item) => item.id);
  const version = await api.call(routes.projects.versions.create, {
    params: { project: project.id },
    body: { title: versionTitle, description: values.description ?? '', packages: [...otherPackages, outcome.packageId] },
  });
  await api.call(routes.projects.versions.publish, { params: { project: project.id, branch: branch.id, version: version.id } });
  await clearPushCache(cache);

  const name = packageTitle({ title: values.title, tags });
  const result = {
    project: project.id,
    branch: branch.id,
    package: outcome.packageId,
    packageTitle: name,
    version: version.id,
    versionTitle: version.title,
    basePackage: pushState.basePackage,
    patch: pushState.patch,
    archiveSize: pushState.archiveSize,
    sentBytes: outcome.sentBytes,
    sentParts: outcome.sentParts,
    totalParts: outcome.totalParts,
    resumed: outcome.resumed,
    warnings: warnings.map((warning) => warning.code),
    markedExecutable: marked.map((parts) => parts.join('/')),
  };
  if (values.json) io.stdout(`${JSON.stringify(result)}\n`);
  else io.stdout(`published version ${version.title} (${version.id}) to ${project.title}/${branch.title}: package ${name} (${outcome.packageId}), sent ${formatSize(outcome.sentBytes)}\n`);
  return exitCodes.ok;
}
