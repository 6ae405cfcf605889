import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { walkEntries } from '../../src/shared/archive/tree.ts';
import type { ArchiveIndex } from '../../src/shared/archive/types.ts';

const run = promisify(execFile);

/**
 * A session's folder, WORK_DIR/sessions/ID: a tmpfs of its own, so that what the game writes is
 * bounded (ENOSPC past the quota, the host's disk untouched) and every sandbox mount comes from a
 * filesystem whose paths say nothing of the host (/proc/self/mountinfo shows "/home", not the work dir).
 *
 *   home/    the game's home (/home/player), its files in home/game; the game's uid
 *   tmp/     the game's /tmp; the game's uid
 *   etc/     the game's passwd, group and machine-id
 *   x11/     the X server's socket folder (its /tmp/.X11-unix); the services' uid
 *   pulse/   the sound server's runtime, home and socket; the services' uid
 *
 * The tmpfs is mounted small, grown to hold the package before it is extracted, then sealed at what
 * the package takes plus the quota, before the game starts. Its pages are memory: a session costs
 * its package's size plus what the game writes, up to the quota, in RAM.
 */
export type SessionLayout = {
  dir: string;
  home: string;
  tmp: string;
  etc: string;
  x11: string;
  pulse: string;
  pulseSocket: string;
  x11Socket(display: number): string;
};

export function sessionLayout(dir: string): SessionLayout {
  const x11 = join(dir, 'x11');
  const pulse = join(dir, 'pulse');
  return {
    dir,
    home: join(dir, 'home'),
    tmp: join(dir, 'tmp'),
    etc: join(dir, 'etc'),
    x11,
    pulse,
    pulseSocket: join(pulse, 'native'),
    x11Socket: (display) => join(x11, `X${display}`),
  };
}

const page = 4096;
/** Room for the folders and sockets the agent and the servers make before the package comes. */
const startBytes = 16 * 1024 * 1024;

/** tmpfs bytes a package's files take once extracted: whole pages per file, one per folder and link. */
export function extractedBytes(index: ArchiveIndex): number {
  let bytes = 0;
  for (const { entry } of walkEntries(index.root)) bytes += entry.kind === 'file' ? Math.ceil(entry.size / page) * page + page : page;
  return bytes;
}

export type DiskPrograms = { mount: string; umount: string };

/** The mount points below `dir` (from /proc/self/mountinfo, whose paths escape spaces and the like in octal). */
export function mountsBelow(dir: string, mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): string[] {
  const prefix = `${dir.replace(/\/+$/, '')}/`;
  return mountinfo
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined)
    .map((point) => point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((point) => point.startsWith(prefix));
}

/** Unmounts whatever an earlier run left mounted below `dir` (a crash, a kill -9), deepest first. */
export async function unmountLeftovers(dir: string, programs: DiskPrograms): Promise<number> {
  const points = mountsBelow(dir).sort((a, b) => b.length - a.length);
  for (const point of points) await run(programs.umount, ['--lazy', point]).catch(() => undefined);
  return points.length;
}

export class SessionDisk {
  private sealedAt: number | undefined;
  private reportedFull = false;

  private constructor(
    readonly layout: SessionLayout,
    /** Bytes the game may write; 0: no quota (no tmpfs, the session folder is on the work dir's disk). */
    readonly quotaBytes: number,
    private readonly programs: DiskPrograms,
    private mounted: boolean,
    private sizeBytes: number,
  ) {}

  /** The session folder, emptied, with a tmpfs of its own when there is a quota. */
  static async create(dir: string, quotaBytes: number, programs: DiskPrograms): Promise<SessionDisk> {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o711 });
    let mounted = false;
    if (quotaBytes > 0) {
      await mountTmpfs(programs, dir, startBytes, false);
      mounted = true;
    }
    return new SessionDisk(sessionLayout(dir), quotaBytes, programs, mounted, startBytes);
  }

  /** Makes room for `bytes` more (the package, before it is extracted). */
  async reserve(bytes: number): Promise<void> {
    if (!this.mounted) return;
    this.sizeBytes = (await this.usedBytes()) + bytes + startBytes;
    await mountTmpfs(this.programs, this.layout.dir, this.sizeBytes, true);
  }

  /** The final size: what is there now plus the quota (before the game starts). */
  async seal(): Promise<void> {
    if (!this.mounted) return;
    this.sealedAt = await this.usedBytes();
    this.sizeBytes = this.sealedAt + this.quotaBytes;
    await mountTmpfs(this.programs, this.layout.dir, this.sizeBytes, true);
  }

  async usedBytes(): Promise<number> {
    const stats = await statfs(this.layout.dir);
    return (stats.blocks - stats.bfree) * stats.bsize;
  }

  /** True once, the first time the sealed area is found full (the agent logs it once). */
  async becameFull(): Promise<boolean> {
    if (!this.mounted || this.sealedAt === undefined || this.reportedFull) return false;
    const stats = await statfs(this.layout.dir);
    if (stats.bavail * stats.bsize >= page) return false;
    this.reportedFull = true;
    return true;
  }

  /** Unmounts (lazily, should anything still hold it) and removes the folder. */
  async remove(): Promise<void> {
    if (this.mounted) {
      await run(this.programs.umount, [this.layout.dir]).catch(() => run(this.programs.umount, ['--lazy', this.layout.dir]));
      this.mounted = false;
    }
    await rm(this.layout.dir, { recursive: true, force: true });
  }
}

async function mountTmpfs(programs: DiskPrograms, dir: string, sizeBytes: number, remount: boolean): Promise<void> {
  const size = Math.ceil(sizeBytes / page) * page;
  const options = `${remount ? 'remount,' : ''}size=${size},mode=0711,nosuid,nodev`;
  try {
    await run(programs.mount, ['-t', 'tmpfs', '-o', options, 'cartridge-session', dir]);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`cannot ${remount ? 'resize' : 'mount'} the session's tmpfs: ${stderr || (error as Error).message}`);
  }
}
