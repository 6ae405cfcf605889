/**
 * A forwarding HTTP proxy in front of the test server that counts what part uploads really carry
 * (bodies of PUT /api/uploads/...) and can slow them down. Absolute server URLs in JSON answers
 * (upload and download URLs) are rewritten to the proxy so those requests pass through it too.
 */
export type CountingProxy = {
  url: string;
  partBytes: number;
  partRequests: number;
  /** Delay before each part upload is forwarded (ms). */
  partDelayMs: number;
  reset(): void;
  stop(): void;
};

export function startCountingProxy(target: string): CountingProxy {
  const state = { partBytes: 0, partRequests: 0, partDelayMs: 0 };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(request) {
      const incoming = new URL(request.url);
      const url = `${target}${incoming.pathname}${incoming.search}`;
      const headers = new Headers(request.headers);
      headers.delete('host');
      let body: ArrayBuffer | undefined;
      if (request.method !== 'GET' && request.method !== 'HEAD') body = await request.arrayBuffer();
      if (request.method === 'PUT' && incoming.pathname.startsWith('/api/uploads/')) {
        state.partRequests += 1;
        state.partBytes += body?.byteLength ?? 0;
        if (state.partDelayMs > 0) await Bun.sleep(state.partDelayMs);
      }
      const response = await fetch(url, { method: request.method, headers, body, redirect: 'manual' });
      const type = response.headers.get('content-type') ?? '';
      const answerHeaders = new Headers(response.headers);
      answerHeaders.delete('content-encoding');
      if (!type.includes('application/json')) {
        return new Response(response.body, { status: response.status, headers: answerHeaders });
      }
      const text = (await response.text()).replaceAll(target, proxy.url);
      answerHeaders.delete('content-length');
      return new Response(text, { status: response.status, headers: answerHeaders });
    },
  });
  const proxy: CountingProxy = {
    url: server.url.toString().replace(/\/+$/, ''),
    get partBytes() {
      return state.partBytes;
    },
    get partRequests() {
      return state.partRequests;
    },
    get partDelayMs() {
      return state.partDelayMs;
    },
    set partDelayMs(value: number) {
      state.partDelayMs = value;
    },
    reset() {
      state.partBytes = 0;
      state.partRequests = 0;
    },
    stop() {
      server.stop(true);
    },
  };
  return proxy;
}
