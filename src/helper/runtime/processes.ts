import { spawn } from 'node:child_process';

/**
 * Spawns a program detached from the helper (its own process group on Linux and macOS, so a game and
 * its children outlive a helper restart and can be told apart), argv only, never a shell, output
 * ignored. Resolves with the pid once the program started; rejects with the spawn error (ENOENT, EACCES,
 * ENOEXEC).
 */
export function spawnDetached(file: string, args: string[], cwd: string): Promise<{ pid: number; exited: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, detached: true, stdio: 'ignore', windowsHide: false, shell: false });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.once('error', (error) => reject(error));
    child.once('spawn', () => {
      child.unref();
      if (child.pid === undefined) reject(new Error('the program did not start'));
      else resolve({ pid: child.pid, exited });
    });
  });
}

/** Games launched by this process, by workdir: running while their process group has a member. */
export class ProcessTracker {
  private readonly groups = new Map<string, { pid: number; exited: boolean }>();

  track(workdirId: string, pid: number, exited: Promise<void>): void {
    const entry = { pid, exited: false };
    this.groups.set(workdirId, entry);
    void exited.then(() => {
      entry.exited = true;
    });
  }

  isRunning(workdirId: string): boolean {
    const entry = this.groups.get(workdirId);
    if (!entry) return false;
    if (process.platform === 'win32') return !entry.exited;
    try {
      // Signal 0 to the group: a launcher script may have exited while the game it started still runs.
      process.kill(-entry.pid, 0);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EPERM' || !entry.exited) return true;
      this.groups.delete(workdirId);
      return false;
    }
  }
}
