import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `path` with `text` so that a crash leaves either the old or the new file, never a mix:
 * write a temporary file beside it, fsync it, rename it over, fsync the folder (where the platform
 * allows). The file is private to the user (0600).
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  if (process.platform !== 'win32') {
    const folder = await open(dirname(path), 'r').catch(() => undefined);
    await folder?.sync().catch(() => undefined);
    await folder?.close();
  }
}
