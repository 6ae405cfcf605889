/**
 * A forwarding proxy in front of the test server for upload tests: counts part uploads and their
 * bytes, and fails the next N requests matching a rule with 503 (a flaky network or gateway).
 */
export type FaultProxy = {
  url: string;
  target: string;
  partBytes: number;
  partRequests: number;
  /** Part numbers forwarded, in order. */
  partsSent: number[];
  /** Answer 503 to the next `count` requests whose method and path match. */
  fail(method: string, path: RegExp, count: number): void;
  /** Forget every failure rule. */
  clear(): void;
  stop(): void;
};

export function startFaultProxy(): FaultProxy {
  const rules: { method: string; path: RegExp; count: number }[] = [];
  const proxy: FaultProxy = {
    url: '',
    target: '',
    partBytes: 0,
    partRequests: 0,
    partsSent: [],
    fail: (method, path, count) => void rules.push({ method, path, count }),
    clear: () => void rules.splice(0),
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(request) {
      const incoming = new URL(request.url);
      const rule = rules.find((item) => item.count > 0 && item.method === request.method && item.path.test(incoming.pathname));
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
      if (rule) {
        rule.count -= 1;
        return new Response('flaky', { status: 503 });
      }
      if (request.method === 'PUT' && incoming.pathname.startsWith('/api/uploads/')) {
        proxy.partRequests += 1;
        proxy.partsSent.push(Number(incoming.searchParams.get('part')));
        proxy.partBytes += body?.byteLength ?? 0;
      }
      const headers = new Headers(request.headers);
      headers.delete('host');
      const response = await fetch(`${proxy.target}${incoming.pathname}${incoming.search}`, { method: request.method, headers, body, redirect: 'manual' });
      const answer = new Headers(response.headers);
      answer.delete('content-encoding');
      answer.delete('content-length');
      return new Response(await response.arrayBuffer(), { status: response.status, headers: answer });
    },
  });
  proxy.url = `http://127.0.0.1:${server.port}`;
  return proxy;
}
