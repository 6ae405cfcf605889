import type * as SharpModule from 'sharp';
import { AppError } from '../../errors.ts';

/** sharp (libvips): the image library content images are decoded and encoded with. */
export type ImageLibrary = typeof SharpModule.default;

let loading: Promise<ImageLibrary> | undefined;

/**
 * sharp is loaded on first use, not at start: it is a native addon with libvips beside it, and a server
 * that cannot load it (a compiled binary moved without its image-library folder, a platform without a
 * prebuilt libvips) still runs everything else; image calls then answer not_supported saying why.
 * From source it comes from node_modules; in the compiled binary (src/tools/build-binary.ts) sharp's
 * JavaScript is inside the executable and its native part is loaded from `image-library/` beside it.
 */
export function loadImageLibrary(): Promise<ImageLibrary> {
  loading ??= import('sharp').then((module) => {
    const sharp = module.default;
    // Every image is decoded once per use: libvips' operation cache would only hold memory.
    sharp.cache(false);
    return sharp;
  });
  return loading;
}

/** The image library, or not_supported with the reason it could not be loaded. */
export async function imageLibrary(): Promise<ImageLibrary> {
  try {
    return await loadImageLibrary();
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);
    throw new AppError('not_supported', `Images cannot be processed on this server: its image library (sharp) did not load (${reason})`);
  }
}
