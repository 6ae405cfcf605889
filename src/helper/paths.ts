import { homedir } from 'node:os';
import { join } from 'node:path';

export type HelperEnv = Record<string, string | undefined>;

/**
 * Where the helper keeps its state file (one per machine user): $CARTRIDGE_HELPER_HOME when set, else
 * the platform's place for application state.
 */
export function helperHome(env: HelperEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.CARTRIDGE_HELPER_HOME) return env.CARTRIDGE_HELPER_HOME;
  const home = env.HOME || env.USERPROFILE || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Cartridge Helper');
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'Cartridge Helper');
  return join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'cartridge-helper');
}

export function statePathOf(home: string): string {
  return join(home, 'state.json');
}

/** The workspace a fresh state starts with: $CARTRIDGE_HELPER_WORKSPACE, else ~/Games/Cartridge. */
export function defaultWorkspacePath(env: HelperEnv = process.env): string {
  if (env.CARTRIDGE_HELPER_WORKSPACE) return env.CARTRIDGE_HELPER_WORKSPACE;
  return join(env.HOME || env.USERPROFILE || homedir(), 'Games', 'Cartridge');
}

/** The workspace's private folder: one sub-folder per workdir (receipt, staging, journal). Never a workdir's name. */
export const privateFolderName = '.cartridge';

export function workdirDirOf(workspacePath: string, name: string): string {
  return join(workspacePath, name);
}

export function metaDirOf(workspacePath: string, workdirId: string): string {
  return join(workspacePath, privateFolderName, workdirId);
}
