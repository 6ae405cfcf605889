import { AppError } from '../errors.ts';
import { noteTransientBytes } from '../memory/transient-bytes.ts';

/**
 * A stream that passes bytes through while counting and SHA-1 hashing them. It fails (so the blob
 * store keeps nothing) once more than `maxSize` bytes arrived, or at the end when the hash is not
 * `expectedHash`. Nothing is buffered: at most the piece in flight.
 */
export function verifyingStream(body: ReadableStream<Uint8Array>, maxSize: number, expectedHash: string, onDone: (size: number) => void): ReadableStream<Uint8Array> {
  const hasher = new Bun.CryptoHasher('sha1');
  let size = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(piece, controller) {
        size += piece.byteLength;
        if (size > maxSize) {
          controller.error(new AppError('bad_param', `Invalid \`part\`: more than ${maxSize} bytes for this part`));
          return;
        }
        hasher.update(piece);
        noteTransientBytes(piece.byteLength);
        controller.enqueue(piece);
      },
      flush(controller) {
        if (hasher.digest('hex') !== expectedHash) controller.error(new AppError('bad_param', 'Invalid `hash`'));
        else onDone(size);
      },
    }),
  );
}
