import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from './atomic-write.ts';
import { Mutex } from './mutex.ts';
import { helperStateSchema, initialState, type HelperState } from './schema.ts';

/** The state file exists but is not a state the helper wrote: it is refused, never replaced. */
class StateFileError extends Error {
  constructor(readonly path: string, reason: string) {
    super(`The state file ${path} is not valid (${reason}); it was left unchanged: fix it, or move it away to start afresh`);
    this.name = 'StateFileError';
  }
}

export type StateStore = {
  readonly path: string;
  /** The state as on disk now (a fresh copy; validated). A missing file reads as the initial state. */
  read(): Promise<HelperState>;
  /**
   * Read-modify-write under the store's mutex: `change` edits a fresh copy; when it returns without
   * throwing and the copy differs from the file, the copy is checked and written atomically.
   */
  update<T>(change: (state: HelperState) => T | Promise<T>): Promise<T>;
};

/**
 * The helper's one small JSON file. Every read goes to the disk (the file is small): the command line
 * (`cartridge-helper trust ...`) changes it while the server runs. Writes within one process are
 * serialised by a mutex; between processes the last writer wins (the command line's changes are
 * single, rare edits).
 */
export function openStateStore(path: string, defaultWorkspacePath: string): StateStore {
  const mutex = new Mutex();

  async function read(): Promise<HelperState> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return initialState(defaultWorkspacePath);
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new StateFileError(path, 'not JSON');
    }
    const parsed = helperStateSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new StateFileError(path, `${issue?.path.join('.') || 'the file'}: ${issue?.message ?? 'unexpected content'}`);
    }
    return parsed.data;
  }

  return {
    path,
    read: () => mutex.run(read),
    update: (change) =>
      mutex.run(async () => {
        const state = await read();
        const before = JSON.stringify(state);
        const result = await change(state);
        const after = JSON.stringify(helperStateSchema.parse(state), null, 2);
        if (JSON.stringify(JSON.parse(after)) !== before) {
          await mkdir(dirname(path), { recursive: true, mode: 0o700 });
          await writeFileAtomic(path, `${after}\n`);
        }
        return result;
      }),
  };
}
