import type { PartDescriptor } from '../../shared/upload/parts.ts';
import type { UploadRecord } from '../../shared/upload/record.ts';
import type { TransferDraft } from './tree-transfer.ts';

/**
 * Where interrupted uploads are remembered, keyed by the draft's fingerprint: re-adding the same files
 * after a reload or a network drop continues with the parts not yet acknowledged (the server keeps
 * parts until the upload token expires).
 */
export type ResumeStore = {
  load(key: string): UploadRecord | null;
  save(key: string, state: UploadRecord): void;
  addPart(key: string, descriptor: PartDescriptor): void;
  remove(key: string): void;
};

const PREFIX = 'upload_resume:';

/** Paths, sizes, modification times and modes of every file, plus what the record is made with. */
export function draftFingerprint(project: string, draft: TransferDraft): string {
  const files = draft.entries.map((entry) => {
    if (entry.kind === 'file') {
      const modified = entry.blob instanceof File ? entry.blob.lastModified : 0;
      return `f:${entry.parts.join('/')}:${entry.blob.size}:${modified}:${entry.mode}`;
    }
    if (entry.kind === 'symlink') return `l:${entry.parts.join('/')}:${entry.target}`;
    return `d:${entry.parts.join('/')}`;
  });
  return JSON.stringify([project, draft.basePackage, draft.tags, draft.title, draft.entrypoint, files]);
}

/** Short keys for storage: a fingerprint can be megabytes for a large tree. */
export async function fingerprintKey(fingerprint: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(fingerprint)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** localStorage (survives reloads and closed tabs until the token expires); memory when unavailable. */
export function createResumeStore(storage: Storage | null = typeof localStorage === 'undefined' ? null : localStorage): ResumeStore {
  const memory = new Map<string, UploadRecord>();
  const read = (key: string): UploadRecord | null => {
    if (!storage) return memory.get(key) ?? null;
    try {
      const text = storage.getItem(PREFIX + key);
      return text ? (JSON.parse(text) as UploadRecord) : null;
    } catch {
      return null;
    }
  };
  const write = (key: string, state: UploadRecord) => {
    if (!storage) return void memory.set(key, state);
    try {
      storage.setItem(PREFIX + key, JSON.stringify(state));
    } catch {
      memory.set(key, state);
    }
  };
  return {
    load: read,
    save: write,
    addPart(key, descriptor) {
      const state = read(key);
      if (!state) return;
      write(key, { ...state, parts: [...state.parts.filter((item) => item.part !== descriptor.part), descriptor] });
    },
    remove(key) {
      memory.delete(key);
      storage?.removeItem(PREFIX + key);
    },
  };
}
