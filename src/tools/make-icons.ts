/**
 * Makes the favicon fallbacks from src/client/icons/favicon.svg (the one drawing of the logo as a file;
 * components/logo.tsx is the same mark inline): favicon.ico (16, 32 and 48 px PNGs in an ICO container,
 * for browsers and tools that ask for an ICO) and apple-touch-icon.png (180 px on a light square, for
 * home screens). index.html links all three; Bun's HTML bundler serves them with hashed names.
 * Run after changing the SVG: `bun src/tools/make-icons.ts`.
 */
import { join } from 'node:path';
import sharp from 'sharp';

const folder = join(import.meta.dir, '..', 'client', 'icons');
const svg = await Bun.file(join(folder, 'favicon.svg')).bytes();

const png = (size: number) => sharp(svg, { density: (72 * size) / 32 }).resize(size, size).png({ compressionLevel: 9 }).toBuffer();

/** An ICO file holding PNG images (supported by every browser since Windows Vista's format change). */
function ico(images: { size: number; data: Uint8Array }[]): Uint8Array {
  const header = new DataView(new ArrayBuffer(6 + 16 * images.length));
  header.setUint16(2, 1, true);
  header.setUint16(4, images.length, true);
  let offset = header.byteLength;
  images.forEach((image, index) => {
    const at = 6 + 16 * index;
    header.setUint8(at, image.size >= 256 ? 0 : image.size);
    header.setUint8(at + 1, image.size >= 256 ? 0 : image.size);
    header.setUint16(at + 4, 1, true);
    header.setUint16(at + 6, 32, true);
    header.setUint32(at + 8, image.data.byteLength, true);
    header.setUint32(at + 12, offset, true);
    offset += image.data.byteLength;
  });
  const out = new Uint8Array(offset);
  out.set(new Uint8Array(header.buffer), 0);
  let at = header.byteLength;
  for (const image of images) {
    out.set(image.data, at);
    at += image.data.byteLength;
  }
  return out;
}

const sizes = [16, 32, 48];
const images = await Promise.all(sizes.map(async (size) => ({ size, data: new Uint8Array(await png(size)) })));
await Bun.write(join(folder, 'favicon.ico'), ico(images));

// Home-screen icon: the mark at 75 % on the accent's light wash (iOS rounds the corners itself).
const mark = await sharp(svg, { density: (72 * 136) / 32 }).resize(136, 136).png().toBuffer();
const touch = await sharp({ create: { width: 180, height: 180, channels: 4, background: '#ece8ff' } })
  .composite([{ input: mark, top: 22, left: 22 }])
  .png({ compressionLevel: 9 })
  .toBuffer();
await Bun.write(join(folder, 'apple-touch-icon.png'), touch);
console.log(`favicon.ico (${sizes.join(', ')} px) and apple-touch-icon.png written to ${folder}`);
