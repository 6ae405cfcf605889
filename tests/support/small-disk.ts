import { mkdtempSync, readdirSync, readlinkSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type SmallDisk = {
  /** The mounted folder. */
  dir: string;
  /** Bytes free now. */
  free(): number;
  /** Takes the disk's space with a filler file until `leave` bytes are free (whatever is free now). */
  fill(leave: number): void;
  /** Removes every filler file. */
  unfill(): void;
  /** Files of this process open under the disk (its descriptors, from /proc/self/fd). */
  openFiles(): string[];
  unmount(): void;
};

/**
 * A real filesystem of `bytes` (tmpfs) mounted for a test: a full disk is met by the real server's
 * real writes. Needs root (the test machines run as root); anything else fails loudly with the reason.
 */
export function mountSmallDisk(bytes: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'cartridge-small-disk-'));
  const mount = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stderr: 'pipe' });
  if (mount.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`this test needs a small disk: 'mount -t tmpfs -o size=${bytes} tmpfs ${dir}' failed (${mount.exitCode}): ${mount.stderr.toString().trim()} (run the tests as root, with mount allowed)`);
  }
  let fillers = 0;
  const free = () => {
    const info = statfsSync(dir);
    return info.bavail * info.bsize;
  };
  return {
    dir,
    free,
    fill(leave) {
      const size = free() - leave;
      if (size <= 0) return;
      const path = join(dir, `filler-${fillers++}`);
      const run = Bun.spawnSync(['fallocate', '-l', String(size), path], { stderr: 'pipe' });
      if (run.exitCode !== 0) throw new Error(`fallocate ${size} ${path}: ${run.stderr.toString().trim()}`);
    },
    unfill() {
      for (const name of readdirSync(dir)) if (name.startsWith('filler-')) rmSync(join(dir, name), { force: true });
    },
    openFiles() {
      const open: string[] = [];
      for (const fd of readdirSync('/proc/self/fd')) {
        try {
          const target = readlinkSync(`/proc/self/fd/${fd}`);
          if (target.startsWith(`${dir}/`)) open.push(target);
        } catch {
          // closed meanwhile (the readdir's own descriptor)
        }
      }
      return open;
    },
    unmount() {
      const run = Bun.spawnSync(['umount', '-l', dir], { stderr: 'pipe' });
      if (run.exitCode !== 0) throw new Error(`umount ${dir}: ${run.stderr.toString().trim()}`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
