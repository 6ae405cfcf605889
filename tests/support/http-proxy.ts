/**
 * A forwarding HTTP proxy in front of the test server for upload tests. It counts what part uploads
 * really carry (bodies of PUT /api/uploads/...), can slow them down, and can fail chosen requests with
 * 503 (a flaky network or gateway). Absolute server URLs in JSON answers are rewritten to the proxy,
 * so upload and download URLs pass through it too when the server does not know the proxy's address.
 */
export type TestProxy = {
  url: string;
  /** The server's origin; set it after start when the server is told the proxy's URL (PUBLIC_URL). */
  target: string;
  partBytes: number;
  partRequests: number;
  /** Part numbers forwarded, in order. */
  partsSent: number[];
  /** Delay before each part upload is forwarded (ms). */
  partDelayMs: number;
  /**
   * Hold each part upload's answer until every part upload in flight has its answer, then send them
   * all at once: parallel parts are acknowledged in the same moment (races in their bookkeeping show).
   */
  answerPartsTogether: boolean;
  /** Answer 503 to the next `count` requests whose method and path match. */
  fail(method: string, path: RegExp, count: number): void;
  /** Forget every failure rule. */
  clear(): void;
  /** Zero the part counters. */
  reset(): void;
  stop(): void;
};

export function startTestProxy(target = ''): TestProxy {
  const rules: { method: string; path: RegExp; count: number }[] = [];
  const proxy: TestProxy = {
    url: '',
    target,
    partBytes: 0,
    partRequests: 0,
    partsSent: [],
    partDelayMs: 0,
    answerPartsTogether: false,
    fail: (method, path, count) => void rules.push({ method, path, count }),
    clear: () => void rules.splice(0),
    reset: () => {
      proxy.partBytes = 0;
      proxy.partRequests = 0;
      proxy.partsSent = [];
    },
    stop: () => server.stop(true),
  };
  let partsInFlight = 0;
  let heldAnswers: (() => void)[] = [];
  /** Resolves when every part upload in flight has come back from the server (answerPartsTogether). */
  const releaseWhenAllAnswered = () => {
    if (heldAnswers.length === 0 || heldAnswers.length < partsInFlight) return;
    const release = heldAnswers;
    heldAnswers = [];
    for (const resolve of release) resolve();
  };
  const partAnswered = (): Promise<void> => {
    const answered = new Promise<void>((resolve) => heldAnswers.push(resolve));
    releaseWhenAllAnswered();
    return answered;
  };
  const partDone = () => {
    partsInFlight -= 1;
    releaseWhenAllAnswered();
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
      const isPart = request.method === 'PUT' && incoming.pathname.startsWith('/api/uploads/');
      if (isPart) {
        partsInFlight += 1;
        proxy.partRequests += 1;
        proxy.partsSent.push(Number(incoming.searchParams.get('part')));
        proxy.partBytes += body?.byteLength ?? 0;
        if (proxy.partDelayMs > 0) await Bun.sleep(proxy.partDelayMs);
      }
      const headers = new Headers(request.headers);
      headers.delete('host');
      let response: Response;
      try {
        response = await fetch(`${proxy.target}${incoming.pathname}${incoming.search}`, { method: request.method, headers, body, redirect: 'manual' });
        if (isPart && proxy.answerPartsTogether) await partAnswered();
      } finally {
        if (isPart) partDone();
      }
      // fetch has decoded the body: its encoding and length no longer hold (Bun sets the new length).
      const answer = new Headers(response.headers);
      answer.delete('content-encoding');
      answer.delete('content-length');
      if (!(response.headers.get('content-type') ?? '').includes('application/json')) {
        return new Response(await response.arrayBuffer(), { status: response.status, headers: answer });
      }
      const text = await response.text();
      return new Response(proxy.target ? text.replaceAll(proxy.target, proxy.url) : text, { status: response.status, headers: answer });
    },
  });
  proxy.url = `http://127.0.0.1:${server.port}`;
  return proxy;
}
