import { z } from 'zod';

/** GET .../download?filter=: none for the archive itself, index for its encoded index, zip for a ZIP. */
const downloadFilterSchema = z.enum(['index', 'zip']);
export const downloadQuery = z.object({ filter: downloadFilterSchema.optional() });
export type DownloadFilter = z.infer<typeof downloadFilterSchema>;

/** A signed, expiring URL under /api/files that needs no bearer header. */
export const downloadUrlSchema = z.object({ url: z.string() });
export type DownloadUrl = z.infer<typeof downloadUrlSchema>;

/** GET .../space, in bytes: files, stored (compressed distinct chunks), held by no other package of the project. */
export const packageSpaceSchema = z.object({
  size: z.number(),
  storedSize: z.number(),
  exclusiveSize: z.number(),
});
export type PackageSpace = z.infer<typeof packageSpaceSchema>;

/** The tRPC form of GET .../torrent (tRPC speaks JSON): the .torrent bytes in base64. */
const torrentFileSchema = z.object({ fileName: z.string(), base64: z.string() });
export type TorrentFile = z.infer<typeof torrentFileSchema>;
