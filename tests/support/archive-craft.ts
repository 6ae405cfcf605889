/**
 * Archives the library's own writer refuses to make (it applies the same rules as the reader), built
 * by hand so readers, the extractor and the server can be fed them: raw index fields, or a tree
 * packed without the writer's symlink rule.
 */
import {
  ARCHIVE_MAGIC,
  concatBytes,
  createBunAdapters,
  encodeHeader,
  encodeIndex,
  encodeVarint,
  indexTree,
  toHex,
  walkFiles,
  type ArchiveTree,
} from '../../src/shared/archive/index.ts';

const adapters = createBunAdapters();
export const sha256 = (bytes: Uint8Array) => adapters.sha256(bytes) as Uint8Array;

export type RawField = number | string | Uint8Array;

/** Index bytes from raw fields: numbers become varints, strings length-prefixed UTF-8, byte arrays go as they are. */
export function encodeFields(...parts: RawField[]): Uint8Array {
  return concatBytes(
    parts.map((part) => {
      if (typeof part === 'number') return encodeVarint(part);
      if (typeof part === 'string') {
        const bytes = new TextEncoder().encode(part);
        return concatBytes([encodeVarint(bytes.length), bytes]);
      }
      return part;
    }),
  );
}

/** A whole archive around the given index bytes, with a correct index hash unless told otherwise. */
export function craftArchive(index: Uint8Array, options: { flags?: number; declaredSize?: number; hash?: Uint8Array; data?: Uint8Array } = {}): Uint8Array {
  return concatBytes([
    ARCHIVE_MAGIC,
    encodeVarint(options.flags ?? 0),
    encodeVarint(options.declaredSize ?? index.length),
    index,
    options.hash ?? sha256(index),
    options.data ?? new Uint8Array(0),
  ]);
}

/**
 * The archive packArchive would make of `tree` (chunking 1, no compression), minus its symlink rule:
 * links leading anywhere are kept, so what reads them can be tested. Files are held in memory.
 */
export async function packIgnoringLinkRule(tree: ArchiveTree): Promise<Uint8Array> {
  const index = await indexTree(tree, { chunking: 1, compression: 0 });
  const indexBytes = concatBytes(encodeIndex(index));
  const seen = new Set<string>();
  const data: Uint8Array[] = [];
  for (const { file } of walkFiles(index)) {
    const bytes = new Uint8Array(await new Response(file.source!.stream()).arrayBuffer());
    let offset = 0;
    for (const chunk of file.chunks ?? []) {
      const key = toHex(chunk.hash);
      if (!seen.has(key)) data.push(bytes.subarray(offset, offset + chunk.size));
      seen.add(key);
      offset += chunk.size;
    }
  }
  return concatBytes([encodeHeader(false, indexBytes.length), indexBytes, sha256(indexBytes), ...data]);
}

/** A nested index (chunking 1, no compression): directories `names[0]/…/names[n-2]` holding one file `names[n-1]` with `content`. */
export function nestedFileIndex(names: readonly string[], content: Uint8Array): Uint8Array {
  const fields: RawField[] = [1, 0, 0, 1]; // chunking 1, compression 0, root: mode 0, 1 entry
  for (const name of names.slice(0, -1)) fields.push(0, name, 0, 1); // directory, mode 0, 1 entry
  fields.push(1, names[names.length - 1]!, 0, content.length, 1, sha256(content), content.length, content.length); // file, 1 chunk
  return encodeFields(...fields);
}
