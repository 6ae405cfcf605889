import type * as SharpModule from 'sharp';

/** sharp (libvips): the image library content images are decoded and encoded with. */
export type ImageLibrary = typeof SharpModule.default;

let loading: Promise<ImageLibrary> | undefined;

/**
 * sharp is loaded by the image worker process only (image-worker/worker-main.ts), never by the server:
 * it is a native addon with libvips beside it (≈ 76 MB resident), and a server whose worker cannot load
 * it (a compiled binary moved without its image-library folder, a platform without a prebuilt libvips)
 * still runs everything else; image calls then answer not_supported saying why (image-work.ts).
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
