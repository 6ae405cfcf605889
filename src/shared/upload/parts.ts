/** One acknowledged part as the server answered it (spec §7 part descriptor). */
export type PartDescriptor = { part: number; hash: string; size: number };

/**
 * Random access to the bytes to upload. A Blob (Bun.file on disk, a File or a Blob built in the
 * browser) is one; so is anything that can hand out [start, end) on demand.
 */
export type PartSource = { size: number; read(start: number, end: number): Promise<Uint8Array> };

export function blobPartSource(blob: Blob): PartSource {
  return { size: blob.size, read: async (start, end) => new Uint8Array(await blob.slice(start, end).arrayBuffer()) };
}

/** How many parts `size` bytes make at `partSize` each (the last one may be shorter). */
export function countParts(size: number, partSize: number): number {
  if (!(partSize > 0)) throw new RangeError('partSize must be positive');
  return Math.ceil(size / partSize);
}

function partRange(part: number, size: number, partSize: number): { start: number; end: number } {
  const start = part * partSize;
  return { start, end: Math.min(size, start + partSize) };
}

/**
 * One part as a source hands it to the upload pipeline: its bytes, or (a source that can skip ahead)
 * the descriptor the server acknowledged for it in an earlier run, without reading it again.
 */
export type PartInput = { part: number; bytes: Uint8Array; earlier?: undefined } | { part: number; earlier: PartDescriptor; bytes?: undefined };

/**
 * The parts of a random-access source (an archive packed to disk): acknowledged ones are skipped
 * unread, the others read one at a time as the pipeline asks for them.
 */
export async function* rangeParts(source: PartSource, partSize: number, acknowledged: ReadonlyMap<number, PartDescriptor>): AsyncGenerator<PartInput> {
  for (let part = 0; part < countParts(source.size, partSize); part++) {
    const earlier = acknowledged.get(part);
    if (earlier) {
      yield { part, earlier };
      continue;
    }
    const { start, end } = partRange(part, source.size, partSize);
    yield { part, bytes: await source.read(start, end) };
  }
}

/** The parts not yet acknowledged, in order: what a resumed upload still has to send. */
export function missingParts(size: number, partSize: number, acknowledged: readonly PartDescriptor[]): number[] {
  const done = new Set(acknowledged.map((item) => item.part));
  const missing: number[] = [];
  for (let part = 0; part < countParts(size, partSize); part++) if (!done.has(part)) missing.push(part);
  return missing;
}

/**
 * Cuts a stream into parts of exactly `partSize` bytes (the last shorter), for callers that produce
 * the archive as a stream and upload while packing. At most one part is held at a time.
 */
export async function* splitStream(stream: ReadableStream<Uint8Array>, partSize: number): AsyncGenerator<{ part: number; bytes: Uint8Array }> {
  const reader = stream.getReader();
  let buffer = new Uint8Array(partSize);
  let filled = 0;
  let part = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let offset = 0;
      while (offset < value.length) {
        const take = Math.min(partSize - filled, value.length - offset);
        buffer.set(value.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === partSize) {
          yield { part: part++, bytes: buffer };
          buffer = new Uint8Array(partSize);
          filled = 0;
        }
      }
    }
    if (filled > 0) yield { part, bytes: buffer.subarray(0, filled) };
  } finally {
    reader.releaseLock();
  }
}
