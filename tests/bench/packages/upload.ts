import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packArchive } from '../../../src/shared/archive/index.ts';
import { readFolderTree } from '../../../src/cli/folder-tree.ts';
import { api, type BenchAccount, type BenchServer } from './server.ts';

const cliMain = resolve(import.meta.dir, '..', '..', '..', 'src', 'cli', 'main.ts');

export type ArchiveParts = { size: number; parts: { path: string; hash: string; size: number }[] };

/**
 * Packs the build exactly as `cartridge push --compression none` does (same folder reader, same
 * packer options, hence the same bytes) into part files of `partSize`, with their SHA-1s: what curl
 * uploads. Not timed.
 */
export async function packIntoParts(buildRoot: string, dir: string, partSize: number): Promise<ArchiveParts> {
  mkdirSync(dir, { recursive: true });
  const folder = await readFolderTree(buildRoot);
  const packed = packArchive(folder.tree, { chunking: 1, compression: 0 });
  const parts: ArchiveParts['parts'] = [];
  let writer: ReturnType<ReturnType<typeof Bun.file>['writer']> | undefined;
  let hasher = new Bun.CryptoHasher('sha1');
  let filled = 0;
  let size = 0;
  const close = async () => {
    if (!writer) return;
    await writer.end();
    parts[parts.length - 1]!.hash = hasher.digest('hex');
    parts[parts.length - 1]!.size = filled;
    writer = undefined;
  };
  for await (const piece of packed.stream as unknown as AsyncIterable<Uint8Array>) {
    for (let offset = 0; offset < piece.length; ) {
      if (!writer) {
        const path = join(dir, `part-${String(parts.length).padStart(5, '0')}`);
        parts.push({ path, hash: '', size: 0 });
        writer = Bun.file(path).writer({ highWaterMark: 1024 * 1024 });
        hasher = new Bun.CryptoHasher('sha1');
        filled = 0;
      }
      const take = Math.min(partSize - filled, piece.length - offset);
      const slice = piece.subarray(offset, offset + take);
      writer.write(slice);
      hasher.update(slice);
      filled += take;
      offset += take;
      size += take;
      if (filled === partSize) await close();
    }
  }
  await close();
  await packed.done;
  return { size, parts };
}

export type CurlUpload = { ms: number; bytes: number; parts: number; packageId: string };

/**
 * The baseline: a package record of the same size through the API, then every part sent with
 * `curl -T` (2 at a time, like the CLI; no `Expect: 100-continue` wait) to the real part upload
 * endpoint, so the server does the same work (token check, SHA-1 verification, storage). The timer
 * covers curl alone. The package is deleted afterwards (its parts go with it).
 */
export async function curlUpload(server: BenchServer, account: BenchAccount, archive: ArchiveParts, partSize: number): Promise<CurlUpload> {
  const created = await api<{ id: string; uploadInfo: { token: string; uploadUrl: string; partSize: number } }>(
    server,
    'POST',
    `/projects/${account.projectId}/packages`,
    account.token,
    { size: archive.size, tags: [], entrypoint: null, title: 'curl baseline' },
  );
  if (created.uploadInfo.partSize !== partSize) throw new Error(`the server asks for ${created.uploadInfo.partSize}-byte parts, not ${partSize}`);
  const args = ['curl', '-sS', '--parallel', '--parallel-max', '2', '-H', 'Expect:', '-H', 'content-type: application/octet-stream', '-w', '%{http_code}\n'];
  archive.parts.forEach((part, index) => {
    const url = new URL(created.uploadInfo.uploadUrl, server.url);
    url.searchParams.set('token', created.uploadInfo.token);
    url.searchParams.set('part', String(index));
    url.searchParams.set('hash', part.hash);
    args.push('-T', part.path, '-o', '/dev/null', url.toString());
  });
  const started = performance.now();
  const child = Bun.spawn(args, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [output, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const ms = performance.now() - started;
  const statuses = output.trim().split('\n');
  const bad = statuses.filter((status) => status !== '200');
  if (code !== 0 || statuses.length !== archive.parts.length || bad.length > 0) {
    throw new Error(`curl -T: exit ${code}, ${statuses.length} replies, not 200: ${bad.slice(0, 5).join(',')} ${errors.slice(0, 300)}`);
  }
  await api(server, 'DELETE', `/projects/${account.projectId}/packages/${created.id}`, account.token);
  return { ms, bytes: archive.size, parts: archive.parts.length, packageId: created.id };
}

export type CliPush = {
  totalMs: number;
  /** From the CLI's first 'indexing' line to its 'packed …' line. */
  packMs: number | undefined;
  /** From its 'uploading 0%' line (package created) to the last 'part N acknowledged' line. */
  uploadMs: number | undefined;
  /** From the last acknowledged part to the exit: finalize (and resolve), version, publish. */
  finishMs: number | undefined;
  parts: number;
  stdout: string;
  stderr: string;
};

/**
 * `bun src/cli/main.ts push DIR PROJECT/BRANCH --compression none --allow-untagged` as its own process with
 * CARTRIDGE_SERVER/CARTRIDGE_TOKEN and a home of its own. Without --json (not a TTY) the CLI logs each
 * phase and every acknowledged part on stderr: the lines are timestamped as they arrive.
 */
export async function cliPush(server: BenchServer, account: BenchAccount, buildRoot: string, home: string, options: { json?: boolean } = {}): Promise<CliPush> {
  // Untagged like the browser upload it is compared with (browser-upload.ts).
  const args = [process.execPath, cliMain, 'push', buildRoot, `${account.projectId}/${account.branch}`, '--compression', 'none', '--allow-untagged'];
  if (options.json) args.push('--json');
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    CARTRIDGE_SERVER: server.url,
    CARTRIDGE_TOKEN: account.token,
  };
  const started = performance.now();
  const child = Bun.spawn(args, { env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const lines: { at: number; text: string }[] = [];
  const readLines = async () => {
    const decoder = new TextDecoder();
    let pending = '';
    for await (const piece of child.stderr as unknown as AsyncIterable<Uint8Array>) {
      const at = performance.now() - started;
      pending += decoder.decode(piece, { stream: true });
      const split = pending.split('\n');
      pending = split.pop()!;
      for (const text of split) lines.push({ at, text });
    }
    if (pending) lines.push({ at: performance.now() - started, text: pending });
  };
  const [stdout, , code] = await Promise.all([new Response(child.stdout).text(), readLines(), child.exited]);
  const totalMs = performance.now() - started;
  const stderr = lines.map((line) => line.text).join('\n');
  if (code !== 0) throw new Error(`cartridge push exited with ${code}:\n${stderr.slice(-2000)}\n${stdout}`);
  const first = (prefix: string) => lines.find((line) => line.text.startsWith(prefix))?.at;
  const acks = lines.filter((line) => /^part \d+ acknowledged/.test(line.text));
  const packStart = first('indexing');
  const packEnd = first('packed ');
  const uploadStart = first('uploading');
  const uploadEnd = acks.at(-1)?.at;
  return {
    totalMs,
    packMs: packStart !== undefined && packEnd !== undefined ? packEnd - packStart : undefined,
    uploadMs: uploadStart !== undefined && uploadEnd !== undefined ? uploadEnd - uploadStart : undefined,
    finishMs: uploadEnd !== undefined ? totalMs - uploadEnd : undefined,
    parts: acks.length,
    stdout,
    stderr,
  };
}

export function removeParts(archive: ArchiveParts): void {
  for (const part of archive.parts) rmSync(part.path, { force: true });
}
