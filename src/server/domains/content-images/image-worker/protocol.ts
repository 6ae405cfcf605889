import type { ContentImageFormat } from '../../../../shared/schemas/content-images.ts';
import type { ContentImageVariants } from '../../../db/schema/index.ts';
import type { UploadFormat } from '../encode.ts';

/**
 * What the server and its image worker process (worker-main.ts) say over the IPC channel (Bun's
 * 'advanced' serialisation: Uint8Arrays cross as bytes). One request per image; its encodings come
 * back one message each as they are made, then one closing message.
 */

/** The argument that makes the compiled binary run as the image worker (main.ts). */
export const imageWorkerCommand = '__image-worker';

/** The worker's exit code when it grew past its memory cap. */
export const memoryCapExitCode = 75;

export type WorkerRequest =
  /** An upload: checked, decoded, oriented; its normalised original and every size come back. */
  | { id: number; kind: 'finalize'; bytes: Uint8Array }
  /** A stored normalised original (the optimise job): every size comes back. */
  | { id: number; kind: 'reencode'; bytes: Uint8Array };

export type WorkerOutput = { kind: 'original' } | { kind: 'size'; width: number; format: ContentImageFormat };

export type FinalizeMade = { width: number; height: number; sourceFormat: UploadFormat; widths: number[]; variants: ContentImageVariants };
export type ReencodeMade = { widths: number[]; variants: ContentImageVariants };

export type WorkerMessage =
  | { type: 'ready' }
  /** The image library did not load: image calls answer not_supported with this reason. */
  | { type: 'unavailable'; reason: string }
  | { type: 'output'; id: number; output: WorkerOutput; bytes: Uint8Array }
  /** rss: the worker's size after it (the server retires a worker left large, see worker-process.ts). */
  | { type: 'done'; id: number; made: FinalizeMade | ReencodeMade; rss: number }
  /** The image was refused (bad_param: not an image, too many pixels, damaged). */
  | { type: 'refused'; id: number; message: string; details?: unknown }
  | { type: 'failed'; id: number; message: string };

/** The worker's settings, in its environment (it is given nothing else of the server's). */
export const workerEnv = { memoryBytes: 'CARTRIDGE_IMAGE_WORKER_MEMORY_BYTES', threads: 'CARTRIDGE_IMAGE_WORKER_THREADS' } as const;
