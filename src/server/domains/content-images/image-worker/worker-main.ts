/**
 * The image worker: a process of its own (started by worker-process.ts, from source as
 * `bun worker-main.ts`, in the compiled binary as `cartridge __image-worker`), so that decoding and
 * encoding use its own libuv thread pool (UV_THREADPOOL_SIZE), its own libvips threads and its own
 * memory, never the server's: the server's Argon2 hashes and file writes do not queue behind pixels.
 * It takes requests over the IPC channel (protocol.ts) and watches its own size: past its memory cap
 * it exits with memoryCapExitCode, and the server fails that image and starts another worker.
 */
import { AppError } from '../../../errors.ts';
import { contentImageWidths } from '../../../../shared/schemas/content-images.ts';
import { decodeOriginal, decodeUpload, encodeOriginal, encodeSizes, type DecodedImage } from '../encode.ts';
import { loadImageLibrary, type ImageLibrary } from '../image-library.ts';
import { memoryCapExitCode, workerEnv, type WorkerMessage, type WorkerOutput, type WorkerRequest } from './protocol.ts';

const memoryBytes = Number(process.env[workerEnv.memoryBytes]) || 0;
const threads = Number(process.env[workerEnv.threads]) || 0;

if (!process.send) {
  process.stderr.write('cartridge: the image worker is started by the server, over its IPC channel\n');
  process.exit(2);
}
const send = (message: WorkerMessage): void => void process.send!(message);

// sharp's work runs on libuv's pool while this thread stays free, so the cap is checked while it works.
if (memoryBytes > 0) {
  setInterval(() => {
    if (process.memoryUsage.rss() > memoryBytes) process.exit(memoryCapExitCode);
  }, 20).unref();
}
// The server went away (stopped, killed): nothing more will be asked.
process.on('disconnect', () => process.exit(0));

async function work(sharp: ImageLibrary, request: WorkerRequest): Promise<void> {
  const { id } = request;
  const emit = async (output: WorkerOutput, bytes: Uint8Array): Promise<void> => send({ type: 'output', id, output, bytes });
  const sizes = async (decoded: DecodedImage) => {
    const widths = contentImageWidths(decoded.width);
    const variants = await encodeSizes(sharp, decoded, widths, (width, format, bytes) => emit({ kind: 'size', width, format }, bytes));
    return { widths, variants };
  };
  try {
    if (request.kind === 'finalize') {
      const decoded = await decodeUpload(sharp, request.bytes);
      await emit({ kind: 'original' }, await encodeOriginal(sharp, decoded));
      const { widths, variants } = await sizes(decoded);
      send({ type: 'done', id, made: { width: decoded.width, height: decoded.height, sourceFormat: decoded.sourceFormat, widths, variants }, rss: process.memoryUsage.rss() });
    } else {
      send({ type: 'done', id, made: await sizes(await decodeOriginal(sharp, request.bytes)), rss: process.memoryUsage.rss() });
    }
  } catch (error) {
    if (error instanceof AppError && error.code === 'bad_param') send({ type: 'refused', id, message: error.message, details: error.details });
    else send({ type: 'failed', id, message: (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300) });
  }
}

let sharp: ImageLibrary;
try {
  sharp = await loadImageLibrary();
} catch (error) {
  send({ type: 'unavailable', reason: (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300) });
  await new Promise(() => undefined);
}
// libvips threads per pipeline: all the cores by default (this process runs at a lower priority than the server).
if (threads > 0) sharp!.concurrency(threads);
process.on('message', (request: WorkerRequest) => void work(sharp, request));
send({ type: 'ready' });
