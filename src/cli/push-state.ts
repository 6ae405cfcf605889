import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UploadRecord } from '../shared/upload/record.ts';
import { cacheDir } from './credentials.ts';
import type { CliIo } from './io.ts';

/**
 * What a push has done so far, kept next to its packed archive so an interrupted push continues
 * where it stopped. Valid only for the same folder content (fingerprint) and base package. `upload`
 * is the upload session's record (src/shared/upload/record.ts): the package, its upload info, the
 * acknowledged parts, finalize's answer and a patch's resolve job.
 */
export type PushState = {
  version: 2;
  fingerprint: string;
  basePackage: string | null;
  archiveSize: number;
  patch: boolean;
  upload?: UploadRecord;
};

export type PushCache = { dir: string; archivePath: string; statePath: string };

/** ~/.cache/cartridge/uploads/<sha256 of the push's identity>/: one slot per folder+target+options. */
export async function openPushCache(io: CliIo, identity: unknown): Promise<PushCache> {
  const key = new Bun.CryptoHasher('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 32);
  const dir = join(cacheDir(io), 'uploads', key);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return { dir, archivePath: join(dir, 'archive.crt'), statePath: join(dir, 'state.json') };
}

export async function readPushState(cache: PushCache): Promise<PushState | undefined> {
  const file = Bun.file(cache.statePath);
  if (!(await file.exists())) return undefined;
  try {
    const state = (await file.json()) as PushState;
    return state.version === 2 ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Atomic (write then rename), and serialised: parallel part uploads save one after the other. */
export function createStateWriter(cache: PushCache): { save(state: PushState): Promise<void> } {
  let chain = Promise.resolve();
  return {
    save(state) {
      const text = JSON.stringify(state);
      chain = chain.then(async () => {
        const temporary = `${cache.statePath}.tmp`;
        await writeFile(temporary, text, { mode: 0o600 });
        await rename(temporary, cache.statePath);
      });
      return chain;
    },
  };
}

export async function clearPushCache(cache: PushCache): Promise<void> {
  await rm(cache.dir, { recursive: true, force: true });
}
