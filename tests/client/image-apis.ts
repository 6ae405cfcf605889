import sharp from 'sharp';

/**
 * happy-dom has no image decoder and no canvas: the browser's createImageBitmap and OffscreenCanvas, as
 * far as lib/content-images.ts uses them, stood in for by sharp (it decodes the file and encodes the
 * JPEG as the browser would; Chromium runs the real ones in the e2e tests). install() returns the undo.
 */
type FakeBitmap = { width: number; height: number; bytes: Uint8Array; close(): void };

/** What a test may watch: the options of each decode, the type of each encode. */
export type ImageApiWatchers = { onDecode?(options: { imageOrientation?: string } | undefined): void; onEncode?(type: string): void };

export function installImageApis(watchers: ImageApiWatchers = {}): () => void {
  const globals = globalThis as unknown as Record<string, unknown>;
  const saved = { createImageBitmap: globals.createImageBitmap, OffscreenCanvas: globals.OffscreenCanvas };
  globals.createImageBitmap = async (blob: Blob, options?: { imageOrientation?: string }) => {
    watchers.onDecode?.(options);
    const bytes = new Uint8Array(await blob.arrayBuffer());
    const meta = await sharp(bytes).metadata();
    return { width: meta.width, height: meta.height, bytes, close() {} } satisfies FakeBitmap;
  };
  globals.OffscreenCanvas = class {
    drawn: FakeBitmap | undefined;
    constructor(
      readonly width: number,
      readonly height: number,
    ) {}
    getContext() {
      return { fillStyle: '', fillRect: () => {}, drawImage: (bitmap: FakeBitmap) => (this.drawn = bitmap) };
    }
    async convertToBlob(options: { type: string; quality: number }) {
      watchers.onEncode?.(options.type);
      const jpeg = await sharp(this.drawn!.bytes).flatten({ background: '#ffffff' }).jpeg({ quality: Math.round(options.quality * 100) }).toBuffer();
      return new Blob([new Uint8Array(jpeg)], { type: options.type });
    }
  };
  return () => {
    globals.createImageBitmap = saved.createImageBitmap;
    globals.OffscreenCanvas = saved.OffscreenCanvas;
  };
}

/** A PNG file of width×height, as a picker or a drop hands it over. */
export async function pngFile(width: number, height: number, name: string, colour = { r: 40, g: 120, b: 200 }): Promise<File> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: colour } }).png().toBuffer();
  return new File([new Uint8Array(bytes)], name, { type: 'image/png' });
}
