import { formatSize } from '../../shared/format/size.ts';
import type { Branch } from '../../shared/schemas/branches.ts';
import type { Package } from '../../shared/schemas/packages.ts';
import { createCliApi } from '../api.ts';
import { parseCommandArgs, retryDelayOf } from '../args.ts';
import { requireCredentials } from '../credentials.ts';
import { CliError, exitCodes } from '../errors.ts';
import type { CliIo } from '../io.ts';
import { currentPackages } from '../push-pack.ts';
import { findBranch, findProject, listBranches, parseTarget } from '../target.ts';

export const statusUsage = `cartridge status PROJECT[/BRANCH] [--json]
  Branches, their current versions and those versions' packages with sizes.`;

type BranchStatus = { branch: Branch; packages: Package[] };

function describe(items: BranchStatus[]): string {
  const lines: string[] = [];
  for (const { branch, packages } of items) {
    const current = branch.currentVersion;
    lines.push(`${branch.title} (${branch.id})${branch.isPublic ? ' public' : ''}: ${current ? `version ${current.title} (${current.version}), published ${current.published}` : 'nothing published'}`);
    for (const item of packages) {
      const size = item.size === null ? item.status : formatSize(item.size);
      lines.push(`  ${item.title} (${item.id}) [${item.tags.join(', ') || 'no tags'}] ${size}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export async function runStatus(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } });
  if (values.help) {
    io.stdout(`${statusUsage}\n`);
    return exitCodes.ok;
  }
  if (positionals.length !== 1) throw new CliError(exitCodes.usage, `usage: ${statusUsage.split('\n')[0]}`);
  const target = parseTarget(positionals[0], false);
  const credentials = await requireCredentials(io);
  const api = createCliApi({ server: credentials.server, token: credentials.token, io, retryDelayMs: retryDelayOf(io.env) });
  const project = await findProject(api, target.project);
  const branches = target.branch ? [await findBranch(api, project, target.branch)] : await listBranches(api, project);
  const items: BranchStatus[] = [];
  for (const branch of branches) items.push({ branch, packages: await currentPackages(api, project.id, branch.currentVersion?.version) });
  if (values.json) io.stdout(`${JSON.stringify({ project, branches: items.map(({ branch, packages }) => ({ ...branch, packages })) })}\n`);
  else io.stdout(`${project.title} (${project.id})\n${describe(items)}`);
  return exitCodes.ok;
}
