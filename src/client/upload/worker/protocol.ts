import type { UploadApiConfig } from '../upload-api.ts';
import type { UploadEvent } from '../upload-queue.ts';
import type { ResumeState } from '../statuses.ts';
import type { TransferDraft } from '../tree-transfer.ts';

/** Page → upload worker. */
export type WorkerRequest =
  | { type: 'add'; id: string; project: string; api: Omit<UploadApiConfig, 'fetch'>; draft: TransferDraft; resume: ResumeState | null }
  | { type: 'cancel'; id: string };

/** Upload worker → page. */
export type WorkerMessage = { type: 'ready' } | UploadEvent;
