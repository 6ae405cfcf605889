import { resolve } from 'node:path';
import { rename, rm } from 'node:fs/promises';
import { packageDownloadName } from '../../shared/packages/package-name.ts';
import { sameTags } from '../../shared/packages/same-tags.ts';
import { describeTagProblem, validateTags } from '../../shared/packages/tags.ts';
import type { Package } from '../../shared/schemas/packages.ts';
import { formatSize } from '../../shared/format/size.ts';
import { ApiError } from '../../shared/api/errors.ts';
import { createCliApi } from '../api.ts';
import { parseCommandArgs, retryDelayOf } from '../args.ts';
import { requireCredentials } from '../credentials.ts';
import { CliError, exitCodes } from '../errors.ts';
import type { CliIo } from '../io.ts';
import { startProgress } from '../progress.ts';
import { currentPackages, downloadUrl } from '../push-pack.ts';
import { findBranch, findProject, parseTarget } from '../target.ts';

export const downloadUsage = `cartridge download PROJECT/BRANCH [options]
  Downloads a package of the branch's current version.
  --tags LIST            the package with exactly these tags (needed when the version has several)
  --format zip|archive   a ZIP (default) or the Cartridge archive (.crt)
  -o, --output FILE      where to write (default: '{project} {package}.zip' or '.crt' in the current folder)
  --json                 print the result as JSON on stdout`;

function choosePackage(packages: Package[], tagsText: string | undefined): Package {
  if (tagsText !== undefined) {
    const parsed = validateTags(tagsText.split(',').map((tag) => tag.trim()).filter(Boolean));
    if (!parsed.ok) throw new CliError(exitCodes.usage, `--tags: ${describeTagProblem(parsed.problem)}`);
    const found = packages.find((item) => sameTags(item.tags, parsed.tags));
    if (!found) throw new CliError(exitCodes.notFound, `no package tagged ${parsed.tags.join(',') || '(no tags)'} in the current version`);
    return found;
  }
  if (packages.length === 1) return packages[0]!;
  if (packages.length === 0) throw new CliError(exitCodes.notFound, 'the current version has no packages');
  const choices = packages.map((item) => `  --tags ${item.tags.join(',') || "''"}  (${item.title})`).join('\n');
  throw new CliError(exitCodes.usage, `the current version has ${packages.length} packages; choose one:\n${choices}`);
}

export async function runDownload(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    tags: { type: 'string' },
    format: { type: 'string' },
    output: { type: 'string', short: 'o' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    io.stdout(`${downloadUsage}\n`);
    return exitCodes.ok;
  }
  if (positionals.length !== 1) throw new CliError(exitCodes.usage, `usage: ${downloadUsage.split('\n')[0]}`);
  const format = values.format ?? 'zip';
  if (format !== 'zip' && format !== 'archive') throw new CliError(exitCodes.usage, `--format must be zip or archive, not '${format}'`);
  const target = parseTarget(positionals[0], true);
  const credentials = await requireCredentials(io);
  const api = createCliApi({ server: credentials.server, token: credentials.token, io, retryDelayMs: retryDelayOf(io.env) });
  const project = await findProject(api, target.project);
  const branch = await findBranch(api, project, target.branch!);
  if (!branch.currentVersion) throw new CliError(exitCodes.notFound, `nothing is published on ${project.title}/${branch.title} yet`);
  const chosen = choosePackage(await currentPackages(api, project.id, branch.currentVersion.version), values.tags);
  // The names the server gives these downloads (one rule: src/shared/packages/package-name.ts).
  const defaultName = packageDownloadName(project.title, chosen, format === 'zip' ? 'zip' : 'archive');
  const output = resolve(io.env.PWD ?? process.cwd(), values.output ?? defaultName);

  const url = await downloadUrl(api, project.id, chosen.id, format === 'zip' ? 'zip' : undefined);
  // The signed URL is its own authorisation: fetched without the bearer, once (a half-written file is not resumed).
  const response = await api.fetchFile(url, { retry: false }).catch((error: unknown) => {
    if (error instanceof ApiError && error.code !== 'request_aborted') throw new CliError(exitCodes.server, `download failed: ${error.status ? `HTTP ${error.status}` : error.message}`, { code: error.code, details: { status: error.status || null } });
    throw error;
  });
  if (!response.body) throw new CliError(exitCodes.server, `download failed: HTTP ${response.status} without a body`);
  const total = Number(response.headers.get('content-length') ?? 0);
  const quiet = Boolean(values.json) && !io.isTTY;
  const progress = startProgress(io, 'downloading', total, { quiet });
  const partial = `${output}.part`;
  const sink = Bun.file(partial).writer();
  let size = 0;
  try {
    for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) {
      sink.write(piece);
      size += piece.byteLength;
      progress.update(size);
      if (size % (8 * 1024 * 1024) < piece.byteLength) await sink.flush();
    }
    await sink.end();
  } catch (error) {
    await Promise.resolve(sink.end()).catch(() => {});
    await rm(partial, { force: true });
    throw new CliError(exitCodes.server, `download interrupted: ${error instanceof Error ? error.message : String(error)}`);
  }
  progress.finish();
  await rename(partial, output);
  if (values.json) io.stdout(`${JSON.stringify({ project: project.id, branch: branch.id, version: branch.currentVersion.version, package: chosen.id, format, path: output, size })}\n`);
  else io.stdout(`downloaded ${chosen.title} (${formatSize(size)}) to ${output}\n`);
  return exitCodes.ok;
}
