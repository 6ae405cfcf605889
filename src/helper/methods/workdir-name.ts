import { HelperError } from '../errors.ts';
import { privateFolderName } from '../paths.ts';

/** Characters and names Windows cannot use for a file (refused on every platform: workspaces move between machines). */
const windowsForbidden = /[<>:"|?*]/;
const windowsReserved = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/** A workdir's folder name, beyond the schema's "a file name, not a path". */
export function checkWorkdirName(name: string): void {
  if (name.toLowerCase() === privateFolderName) throw new HelperError('name_conflict', `${privateFolderName} is the helper's own folder: choose another name`, { field: 'name' });
  if (windowsForbidden.test(name) || windowsReserved.test(name) || /[. ]$/.test(name) || /\u007f/.test(name)) {
    throw new HelperError('bad_param', 'name: not usable as a folder name on every system (no < > : " | ? *, no trailing dot or space, not CON, NUL, ...)', { field: 'name' });
  }
}

/** Whether two names are the same folder where names are case-insensitive (macOS, Windows). */
export function sameFolderName(a: string, b: string, platform: NodeJS.Platform): boolean {
  return platform === 'linux' ? a === b : a.normalize('NFC').toLowerCase() === b.normalize('NFC').toLowerCase();
}
