/**
 * A forwarding proxy in front of the test server for the helper's downloads: passes GET/HEAD with
 * their Range header, counts the body bytes it sends, and can send them slowly (bytesPerSecond) so a
 * test can act in the middle of a transition (one rate for all its streams together). Its origin is another trusted origin for the helper; the
 * signed URL path is the server's (the signature covers the package, kind and expiry only).
 */
export type SlowProxy = {
  url: string;
  /** Bytes of response bodies sent so far. */
  bytesSent: number;
  /** Every request passed on: its path and the reply's Content-Encoding (dcz index deltas pass through). */
  requests: { path: string; encoding: string | null }[];
  /** Infinity: as fast as the server answers. */
  bytesPerSecond: number;
  /** The same path on the proxy's origin. */
  via(url: string): string;
  stop(): void;
};

export function startSlowProxy(target: string): SlowProxy {
  const proxy: SlowProxy = {
    url: '',
    bytesSent: 0,
    requests: [],
    bytesPerSecond: Number.POSITIVE_INFINITY,
    via: (url) => {
      const parsed = new URL(url);
      return `${proxy.url}${parsed.pathname}${parsed.search}`;
    },
    stop: () => server.stop(true),
  };
  const piece = 16 * 1024;
  // One budget for all streams (the engine fetches several ranges at once): each slice books its time slot.
  let nextSlot = 0;
  async function throttle(bytes: number): Promise<void> {
    if (!Number.isFinite(proxy.bytesPerSecond)) return;
    const now = performance.now();
    const start = Math.max(now, nextSlot);
    nextSlot = start + (bytes / proxy.bytesPerSecond) * 1000;
    if (nextSlot - now >= 1) await Bun.sleep(nextSlot - now);
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(request) {
      const incoming = new URL(request.url);
      const headers = new Headers();
      const range = request.headers.get('range');
      if (range) headers.set('range', range);
      // An index delta offer (RFC 9842) goes through as is, and so does its dcz reply.
      const dictionary = request.headers.get('available-dictionary');
      if (dictionary) {
        headers.set('available-dictionary', dictionary);
        headers.set('accept-encoding', request.headers.get('accept-encoding') ?? '');
      }
      const upstream = await fetch(`${target}${incoming.pathname}${incoming.search}`, { method: request.method, headers, redirect: 'manual', signal: request.signal });
      const answer = new Headers(upstream.headers);
      const encoding = upstream.headers.get('content-encoding');
      proxy.requests.push({ path: incoming.pathname, encoding });
      if (encoding !== 'dcz') answer.delete('content-encoding');
      if (!upstream.body || request.method === 'HEAD') return new Response(null, { status: upstream.status, headers: answer });
      const reader = upstream.body.getReader();
      let pending: Uint8Array | undefined;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!pending || pending.byteLength === 0) {
            const next = await reader.read();
            if (next.done) {
              controller.close();
              return;
            }
            pending = next.value;
          }
          const slice = pending.subarray(0, piece);
          pending = pending.subarray(slice.byteLength);
          await throttle(slice.byteLength);
          proxy.bytesSent += slice.byteLength;
          controller.enqueue(slice);
        },
        cancel() {
          void reader.cancel().catch(() => undefined);
        },
      });
      return new Response(body, { status: upstream.status, headers: answer });
    },
  });
  proxy.url = `http://127.0.0.1:${server.port}`;
  return proxy;
}
