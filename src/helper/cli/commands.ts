import { lstat, mkdir, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { messageOf } from '../errors.ts';
import { newId } from '../ids.ts';
import { isInside } from '../methods/entrypoint.ts';
import { originOfUserInput } from '../origins.ts';
import type { StateStore } from '../state/store.ts';
import { UsageError, type HelperIo } from './io.ts';

function originArgument(args: string[], command: string): string {
  if (args.length !== 1) throw new UsageError(`${command} takes one origin, like https://cartridge.example`);
  const origin = originOfUserInput(args[0]!);
  if (!origin) throw new UsageError(`not an origin: ${JSON.stringify(args[0]!.slice(0, 200))} (give scheme://host[:port], like https://cartridge.example)`);
  return origin;
}

const isLoopback = (origin: string) => /^http:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/.test(origin);

export async function trust(store: StateStore, args: string[], io: HelperIo): Promise<number> {
  const origin = originArgument(args, 'trust');
  const added = await store.update((state) => {
    if (state.trusted_origins.includes(origin)) return false;
    state.trusted_origins.push(origin);
    return true;
  });
  io.stdout(`${added ? 'Trusted' : 'Already trusted:'} ${origin}\n`);
  if (origin.startsWith('http:') && !isLoopback(origin)) {
    io.stderr(`Warning: ${origin} is plain http: anyone on the network path can pretend to be it. Prefer https.\n`);
  }
  return 0;
}

export async function untrust(store: StateStore, args: string[], io: HelperIo): Promise<number> {
  const origin = originArgument(args, 'untrust');
  const removed = await store.update((state) => {
    const before = state.trusted_origins.length;
    state.trusted_origins = state.trusted_origins.filter((item) => item !== origin);
    return state.trusted_origins.length !== before;
  });
  if (!removed) {
    io.stderr(`cartridge-helper: ${origin} was not trusted\n`);
    return 1;
  }
  io.stdout(`No longer trusted: ${origin}\n`);
  return 0;
}

export async function trusted(store: StateStore, args: string[], io: HelperIo): Promise<number> {
  if (args.length > 0) throw new UsageError('trusted takes no arguments');
  const state = await store.read();
  if (state.trusted_origins.length === 0) io.stderr('No trusted origins yet: cartridge-helper trust https://your-cartridge-server\n');
  for (const origin of state.trusted_origins) io.stdout(`${origin}\n`);
  return 0;
}

async function workspaceAdd(store: StateStore, args: string[], io: HelperIo): Promise<number> {
  if (args.length !== 1 || args[0] === '') throw new UsageError('workspace add takes one folder path');
  const wanted = resolve(args[0]!);
  try {
    await mkdir(wanted, { recursive: true });
  } catch (error) {
    io.stderr(`cartridge-helper: cannot create ${wanted}: ${messageOf(error)}\n`);
    return 1;
  }
  if (!(await lstat(wanted)).isDirectory()) {
    io.stderr(`cartridge-helper: ${wanted} is not a folder\n`);
    return 1;
  }
  const path = await realpath(wanted);
  const result = await store.update(async (state) => {
    for (const workspace of state.workspaces) {
      const other = await realpath(workspace.local_path).catch(() => resolve(workspace.local_path));
      if (other === path) return { clash: `${path} is already workspace ${workspace.id}` };
      if (isInside(other, path) || isInside(path, other)) return { clash: `${path} overlaps workspace ${workspace.id} (${workspace.local_path}): workspaces cannot be inside one another` };
    }
    const id = newId();
    state.workspaces.push({ id, local_path: path });
    return { id };
  });
  if ('clash' in result) {
    io.stderr(`cartridge-helper: ${result.clash}\n`);
    return 1;
  }
  io.stdout(`Added workspace ${result.id}: ${path}\n`);
  return 0;
}

async function workspaceList(store: StateStore, io: HelperIo): Promise<number> {
  const state = await store.read();
  for (const workspace of state.workspaces) {
    const count = state.workdirs.filter((workdir) => workdir.workspace_id === workspace.id).length;
    io.stdout(`${workspace.id}\t${workspace.local_path}\t${count} workdir${count === 1 ? '' : 's'}\n`);
  }
  if (state.workspaces.length === 0) io.stderr('No workspaces: cartridge-helper workspace add PATH\n');
  return 0;
}

async function workspaceRemove(store: StateStore, args: string[], io: HelperIo): Promise<number> {
  if (args.length !== 1) throw new UsageError('workspace remove takes one workspace id (see workspace list)');
  const id = args[0]!;
  const result = await store.update((state) => {
    const workspace = state.workspaces.find((item) => item.id === id);
    if (!workspace) return `no workspace with id ${id}`;
    const count = state.workdirs.filter((workdir) => workdir.workspace_id === id).length;
    if (count > 0) return `workspace ${id} holds ${count} workdir${count === 1 ? '' : 's'}: delete them from the page first`;
    state.workspaces = state.workspaces.filter((item) => item.id !== id);
    return workspace;
  });
  if (typeof result === 'string') {
    io.stderr(`cartridge-helper: ${result}\n`);
    return 1;
  }
  io.stdout(`Removed workspace ${id} (its folder ${result.local_path} was left as it is)\n`);
  return 0;
}

export async function workspace(store: StateStore, args: string[], io: HelperIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'add':
      return workspaceAdd(store, rest, io);
    case 'list':
      if (rest.length > 0) throw new UsageError('workspace list takes no arguments');
      return workspaceList(store, io);
    case 'remove':
      return workspaceRemove(store, rest, io);
    default:
      throw new UsageError(sub === undefined ? 'workspace needs add, list or remove' : `unknown workspace command ${sub.slice(0, 64)}`);
  }
}
