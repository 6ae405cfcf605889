import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { dlopen, FFIType, read } from 'bun:ffi';
import { ConfigError } from '../config.ts';

/**
 * An embedded database (PGlite) must be opened by one process at a time: a second one on the same
 * folder acknowledges writes that the first overwrites, and can leave the folder unable to boot. So
 * whoever opens it holds an exclusive flock(2) on `<folder>.lock` (DATA_DIR/db.lock): the kernel
 * drops it when the holder exits in any way (kill -9 included), so a restart never meets a stale lock,
 * and the lock file's only content, the holder's pid, is for the refusal's sentence. Bun has no flock
 * of its own; libc's is called through bun:ffi (also inside the compiled binary).
 */
export class DataFolderInUseError extends ConfigError {
  override name = 'DataFolderInUseError';
}

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
const EWOULDBLOCK = process.platform === 'darwin' ? 35 : 11;

type Libc = { flock(fd: number, operation: number): number; errno(): number };

let libc: Libc | null | undefined;
function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  const darwin = process.platform === 'darwin';
  const errnoSymbol = darwin ? '__error' : '__errno_location';
  const names = darwin ? ['libSystem.B.dylib'] : process.platform === 'linux' ? ['libc.so.6', `libc.musl-${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}.so.1`] : [];
  for (const name of names) {
    try {
      const { symbols } = dlopen(name, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 }, [errnoSymbol]: { args: [], returns: FFIType.ptr } });
      const errnoPointer = symbols[errnoSymbol]!;
      libc = { flock: (fd, operation) => symbols.flock(fd, operation) as number, errno: () => read.i32(errnoPointer()!, 0) };
      return libc;
    } catch {
      // the next name (glibc, then musl)
    }
  }
  libc = null;
  return libc;
}

export type DataFolderLock = { release(): void };

/**
 * Takes the lock of the embedded database in `pgliteDir` or throws DataFolderInUseError (one sentence
 * naming the data folder and the holder's pid), having changed nothing. Not reentrant: a second
 * lock of the same folder in this process is refused too (flock locks an open file, not a process),
 * since two PGlite instances on one folder in one process corrupt it alike. Platforms without flock
 * (Windows) run unlocked.
 */
export function lockDataFolder(pgliteDir: string): DataFolderLock {
  const lockPath = `${resolve(pgliteDir)}.lock`;
  const calls = loadLibc();
  if (!calls) return { release() {} };
  mkdirSync(dirname(lockPath), { recursive: true });
  const fd = openSync(lockPath, constants.O_RDWR | constants.O_CREAT, 0o644);
  if (calls.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = calls.errno();
    closeSync(fd);
    if (errno !== EWOULDBLOCK) throw new Error(`flock(${lockPath}) failed with errno ${errno}`);
    throw new DataFolderInUseError(inUseSentence(dirname(lockPath), holderPid(lockPath)));
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      ftruncateSync(fd, 0);
      calls.flock(fd, LOCK_UN);
      closeSync(fd);
    },
  };
}

/** The pid in the lock file; its holder writes it right after locking, so a reader may briefly see none. */
function holderPid(lockPath: string): string | undefined {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const pid = readFileSync(lockPath, 'utf8').trim();
    if (/^\d+$/.test(pid)) return pid;
    Bun.sleepSync(2);
  }
  return undefined;
}

function inUseSentence(dataDir: string, pid: string | undefined): string {
  return `the data folder ${dataDir} is in use by ${pid ? `process ${pid}` : 'another process'} (a Cartridge server or admin command): its embedded database opens in one process at a time, so stop that one first, or use PostgreSQL (DATABASE_URL) to run several`;
}
