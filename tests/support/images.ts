import sharp from 'sharp';

/**
 * Real images for the content image tests and benchmarks, made with sharp: photo-like pictures
 * (gradients, shapes, text and a little noise, so encoders work as on screenshots), JPEGs carrying
 * EXIF orientation and GPS, and a tiny reader of EXIF's TIFF structure to prove what a file holds.
 */

/** A deterministic photo-like picture, PNG (lossless) or JPEG. */
export async function photoLike(width: number, height: number, options: { seed?: number; format?: 'png' | 'jpeg'; noise?: number; alpha?: boolean } = {}): Promise<Uint8Array> {
  let state = options.seed ?? 1;
  const random = () => (state = (state * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x7fffffff;
  const shapes = Array.from({ length: 40 }, () => {
    const colour = `rgb(${(random() * 255) | 0},${(random() * 255) | 0},${(random() * 255) | 0})`;
    return `<circle cx="${(random() * width) | 0}" cy="${(random() * height) | 0}" r="${(10 + random() * Math.max(width, height) / 5) | 0}" fill="${colour}" fill-opacity="${(0.3 + random() * 0.6).toFixed(2)}"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1d3557"/><stop offset="1" stop-color="#e9c46a"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"${options.alpha ? ' fill-opacity="0.5"' : ''}/>${shapes}<text x="${(width / 20) | 0}" y="${(height / 5) | 0}" font-size="${Math.max(8, (height / 10) | 0)}" fill="#fff">Level ${options.seed ?? 1}</text></svg>`;
  let image = sharp(Buffer.from(svg));
  if ((options.noise ?? 8) > 0 && !options.alpha) {
    const noise = await sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: options.noise ?? 8 } } }).png().toBuffer();
    image = sharp(await image.png().toBuffer()).composite([{ input: noise, blend: 'overlay' }]);
  }
  const output = options.format === 'jpeg' ? image.jpeg({ quality: 90 }) : image.png();
  return new Uint8Array(await output.toBuffer());
}

/** A JPEG with EXIF orientation `orientation` (6: the camera was turned, shown rotated 90° clockwise) and a GPS position. */
export async function jpegWithExif(width: number, height: number, orientation: number): Promise<Uint8Array> {
  const pixels = await photoLike(width, height, { format: 'png', seed: 7 });
  const bytes = await sharp(pixels)
    .withExif({
      IFD0: { Make: 'TestCam', Model: 'Pocket 1' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' },
    })
    .withMetadata({ orientation })
    .jpeg({ quality: 90 })
    .toBuffer();
  return new Uint8Array(bytes);
}

/** Tags of EXIF's IFD0 and, when it points to one, its GPS IFD (tag numbers). undefined: no EXIF at all. */
export function exifTags(exif: Uint8Array | undefined): { ifd0: number[]; gps: number[] } | undefined {
  if (!exif || exif.length < 14) return undefined;
  const tiff = Buffer.from(exif.buffer, exif.byteOffset, exif.byteLength).subarray(6); // after "Exif\0\0"
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const tagsAt = (offset: number) => {
    if (offset + 2 > tiff.length) return [] as { tag: number; value: number }[];
    return Array.from({ length: u16(offset) }, (_, i) => ({ tag: u16(offset + 2 + i * 12), value: u32(offset + 2 + i * 12 + 8) }));
  };
  const ifd0 = tagsAt(u32(4));
  const gpsPointer = ifd0.find((entry) => entry.tag === 0x8825);
  return { ifd0: ifd0.map((entry) => entry.tag), gps: gpsPointer ? tagsAt(gpsPointer.value).map((entry) => entry.tag) : [] };
}

/** A PNG whose header declares width×height while its compressed data is a few bytes (a decompression bomb). */
export function pngBomb(width: number, height: number): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  // One row of zeros, deflated: what a bomb would repeat; a decoder must not allocate width×height first.
  const data = Bun.deflateSync(new Uint8Array(width + 1));
  return new Uint8Array(Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), chunk('IHDR', header), chunk('IDAT', Buffer.from(data)), chunk('IEND', Buffer.alloc(0))]));
}
