import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real S3-protocol server for tests: moto's standalone server (Python package moto 5.x with
 * Flask/Werkzeug, preinstalled on this project's machine image). It speaks SigV4 requests, multipart
 * uploads, ListObjectsV2 with continuation tokens, ranges and presigned URLs; it keeps objects in
 * memory and does not check signatures. Started on a free loopback port; nothing leaves the machine.
 */
export type TestS3Server = {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** S3_* variables for createBlobStore. */
  env: Record<string, string>;
  /** Creates another empty bucket. */
  createBucket(name: string): Promise<void>;
  /** Creates many small objects at once, bypassing the S3 API (for listing tests). */
  seed(keys: string[], body?: string): Promise<void>;
  /** What the server printed (request log), for assertions and failure reports. */
  readLog(): Promise<string>;
  stop(): Promise<void>;
};

export async function startS3Server(options: { bucket?: string } = {}): Promise<TestS3Server> {
  const command = findMotoServer();
  const folder = await mkdtemp(join(tmpdir(), 'cartridge-s3-'));
  const logPath = join(folder, 'server.log');
  const bucket = options.bucket ?? 'cartridge-test';
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await findFreePort();
    const endpoint = `http://127.0.0.1:${port}`;
    const logFd = openSync(logPath, 'a');
    const child = Bun.spawn([...command, '127.0.0.1', String(port)], {
      stdin: 'ignore',
      stdout: logFd,
      stderr: logFd,
      env: { ...process.env, PYTHONUNBUFFERED: '1' },
    });
    closeSync(logFd);
    try {
      await waitUntilUp(endpoint, child, 15_000);
      const server: TestS3Server = {
        endpoint,
        bucket,
        accessKeyId: 'cartridge-test',
        secretAccessKey: 'cartridge-test-secret',
        env: {
          S3_ENDPOINT: endpoint,
          S3_ACCESS_KEY_ID: 'cartridge-test',
          S3_SECRET_ACCESS_KEY: 'cartridge-test-secret',
        },
        async createBucket(name) {
          const response = await fetch(`${endpoint}/${name}`, { method: 'PUT' });
          if (!response.ok) throw new Error(`Creating bucket ${name}: HTTP ${response.status} ${await response.text()}`);
        },
        async seed(keys, body = 'x') {
          const response = await fetch(`${endpoint}/_test/seed`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ bucket, keys, body }),
          });
          if (!response.ok) throw new Error(`Seeding: HTTP ${response.status} ${await response.text()}`);
        },
        readLog: () => readFile(logPath, 'utf8').catch(() => ''),
        async stop() {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
          await child.exited;
          clearTimeout(timer);
          await rm(folder, { recursive: true, force: true });
        },
      };
      await server.createBucket(bucket);
      return server;
    } catch (error) {
      lastError = error;
      child.kill('SIGKILL');
      await child.exited;
    }
  }
  const log = await readFile(logPath, 'utf8').catch(() => '');
  await rm(folder, { recursive: true, force: true });
  throw new Error(`The test S3 server did not start: ${String(lastError)}\n${log.slice(-2000)}`);
}

/**
 * Runs moto's WSGI app like its `moto_server` command does, with two changes:
 * - requests are served on threads (keep-alive) but handled one at a time: moto 5.2 races when two
 *   PUTs replace the same key at once (500 "I/O operation on closed file"), and tests put one key
 *   concurrently on purpose. The server is CPU-bound under the GIL anyway.
 * - POST /_test/seed {bucket, keys, body} creates many small objects in one request, so a test of
 *   listing past 1000 keys does not spend seconds on 1000 PUTs. Reads still go through S3 requests.
 */
const motoLauncher = `
import json, os, signal, sys, threading
from werkzeug.serving import run_simple
from moto.core import DEFAULT_ACCOUNT_ID
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from moto.s3.models import s3_backends
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
os.environ.setdefault("MOTO_PORT", sys.argv[2])
app = DomainDispatcherApplication(create_backend_app)
lock = threading.Lock()
def seed(environ, start_response):
    request = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
    backend = s3_backends[DEFAULT_ACCOUNT_ID]["aws"]
    for key in request["keys"]:
        backend.put_object(request["bucket"], key, request["body"].encode())
    start_response("204 No Content", [])
    return []
def serialized(environ, start_response):
    with lock:
        if environ.get("PATH_INFO") == "/_test/seed" and environ.get("REQUEST_METHOD") == "POST":
            return seed(environ, start_response)
        return list(app(environ, start_response))
run_simple(sys.argv[1], int(sys.argv[2]), serialized, threaded=True)
`;

let motoPython: string | undefined;

/** The real interpreter that has moto (resolved once: pyenv shims cost ~0.5 s per start). */
function findMotoServer(): string[] {
  if (motoPython === undefined) {
    const candidates = [Bun.which('python3'), Bun.which('python')].filter((path): path is string => !!path);
    for (const candidate of candidates) {
      const probe = Bun.spawnSync([candidate, '-c', 'import sys, moto.server, werkzeug; print(sys.executable)']);
      const executable = probe.stdout.toString().trim();
      if (probe.exitCode === 0 && executable) {
        motoPython = executable;
        break;
      }
    }
  }
  if (motoPython === undefined) {
    throw new Error(
      'S3 tests need the Python package moto with its server extra (preinstalled on the node-svc ' +
        'machine image). Install it with `pip install "moto[server]"`.',
    );
  }
  return [motoPython, '-c', motoLauncher];
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(endpoint: string, child: { exitCode: number | null }, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  throw new Error(`moto_server did not answer on ${endpoint} within ${timeoutMs} ms`);
}
