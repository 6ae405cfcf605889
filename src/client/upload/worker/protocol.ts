import type { UploadRecord } from '../../../shared/upload/record.ts';
import type { UploadApiConfig, UploadEvent } from '../upload-queue.ts';
import type { TransferDraft } from '../tree-transfer.ts';

/** Page → upload worker. */
export type WorkerRequest =
  | { type: 'add'; id: string; project: string; api: UploadApiConfig; draft: TransferDraft; resume: UploadRecord | null }
  | { type: 'cancel'; id: string };

/** Upload worker → page. */
export type WorkerMessage = { type: 'ready' } | UploadEvent;
