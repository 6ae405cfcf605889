import { api, type BenchAccount, type BenchServer } from './server.ts';

export type Download = { ms: number; bytes: number };

/** The package's signed ZIP URL (GET …/download?filter=zip), absolute. */
export async function zipUrl(server: BenchServer, account: BenchAccount, packageId: string): Promise<string> {
  const { url } = await api<{ url: string }>(server, 'GET', `/projects/${account.projectId}/packages/${packageId}/download?filter=zip`, account.token);
  return new URL(url, server.url).toString();
}

/** `curl -o OUTPUT URL` (default /dev/null): bytes and wall time as curl measured them. */
export async function curlDownload(url: string, output = '/dev/null'): Promise<Download> {
  const child = Bun.spawn(['curl', '-sS', '--fail', '-o', output, '-w', '%{size_download} %{time_total}', url], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [text, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`curl ${url}: exit ${code} ${errors.slice(0, 300)}`);
  const [bytes, seconds] = text.trim().split(' ').map(Number);
  return { ms: seconds! * 1000, bytes: bytes! };
}

/** `count` curl downloads at once; wall time from the first start to the last end. */
export async function parallelDownloads(url: string, count: number): Promise<{ ms: number; bytes: number; each: Download[] }> {
  const started = performance.now();
  const each = await Promise.all(Array.from({ length: count }, () => curlDownload(url)));
  return { ms: performance.now() - started, bytes: each.reduce((sum, item) => sum + item.bytes, 0), each };
}

/** The baseline: a bare Bun.serve in this process answering every request with Bun.file(path). */
export function serveFile(path: string): { url: string; stop(): void } {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(Bun.file(path)) });
  return { url: `http://127.0.0.1:${server.port}/file.zip`, stop: () => void server.stop(true) };
}
