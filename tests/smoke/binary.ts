/**
 * Smoke test of the compiled executable (run after `npm run build`):
 *   bun tests/smoke/binary.ts [path/to/cartridge]
 *
 * The binary is copied alone into an empty temporary folder and started there with a clean environment,
 * so it can only work if everything it needs (client bundle, migrations, PGlite files) is inside it.
 * Covers PGlite (start, register, session, the data folder's lock, client, SIGTERM, restart on the same data, sign in, the
 * `admin` command on the stopped instance's data, the local app builds of the local-app folder beside it,
 * a pasted image uploaded, finalized and served in every format through sharp from the image-library folder beside it)
 * and PostgreSQL (a fresh database on SMOKE_DATABASE_URL's server, default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import postgres from 'postgres';
import sharp from 'sharp';
import { findFreePort } from '../support/free-port.ts';

const binarySource = resolve(process.argv[2] ?? join(import.meta.dir, '..', '..', 'dist', 'cartridge'));
const adminDatabaseUrl = process.env.SMOKE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const startTimeoutMs = 30_000;
const stopTimeoutMs = 10_000;

class SmokeFailure extends Error {
  override name = 'SmokeFailure';
}

let passed = 0;
let current: RunningBinary | undefined;

function pass(what: string): void {
  passed++;
  console.log(`  ok  ${what}`);
}

function check(condition: unknown, what: string, detail = ''): asserts condition {
  if (!condition) throw new SmokeFailure(`${what}${detail ? `: ${detail}` : ''}`);
  pass(what);
}

type RunningBinary = {
  url: string;
  label: string;
  process: ReturnType<typeof Bun.spawn>;
  logPath: string;
};

async function startBinary(label: string, folder: string, env: Record<string, string>): Promise<RunningBinary> {
  const port = await findFreePort();
  // Its own free port for the play origin: PORT+1 (the default) may be a client socket's port just now.
  const playPort = await findFreePort();
  const logPath = join(folder, `${label.replace(/\W+/g, '-')}.log`);
  const child = Bun.spawn([join(folder, 'cartridge')], {
    cwd: folder,
    // Nothing inherited: no NODE_PATH, no BUN_* settings, no DATABASE_URL from the caller.
    env: { PATH: '/usr/bin:/bin', HOME: folder, TMPDIR: folder, PORT: String(port), PLAY_PORT: String(playPort), HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env },
    stdin: 'ignore',
    stdout: Bun.file(logPath),
    stderr: Bun.file(`${logPath}.err`),
  });
  const running: RunningBinary = { url: `http://127.0.0.1:${port}`, label, process: child, logPath };
  current = running;
  const started = performance.now();
  while (performance.now() - started < startTimeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new SmokeFailure(`${label}: exited before answering /health (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    const status = await fetch(`${running.url}/health`).then((response) => response.status, () => 0);
    if (status === 200) {
      pass(`${label}: /health 200 after ${Math.round(performance.now() - started)} ms`);
      return running;
    }
    await Bun.sleep(50);
  }
  throw new SmokeFailure(`${label}: /health did not answer 200 within ${startTimeoutMs / 1000} s`);
}

async function stopBinary(running: RunningBinary): Promise<void> {
  running.process.kill('SIGTERM');
  const exited = await Promise.race([running.process.exited.then(() => true), Bun.sleep(stopTimeoutMs).then(() => false)]);
  if (!exited) running.process.kill('SIGKILL');
  check(exited, `${running.label}: stops within ${stopTimeoutMs / 1000} s of SIGTERM`);
  check(
    running.process.exitCode === 0 && running.process.signalCode === null,
    `${running.label}: clean exit on SIGTERM`,
    `code ${running.process.exitCode}, signal ${running.process.signalCode}`,
  );
  if (current === running) current = undefined;
}

type SessionReply = { authToken?: string | null; userInfo?: { id: string; title: string } | null };

async function signIn(running: RunningBinary, name: string, password: string, intent: 'register' | 'login'): Promise<string> {
  const response = await fetch(`${running.url}/api/auth/password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password, intent }),
  });
  const text = await response.text();
  check(response.status === 200, `${running.label}: POST /api/auth/password (${intent}) 200`, `${response.status} ${text.slice(0, 200)}`);
  const reply = JSON.parse(text) as SessionReply;
  check(typeof reply.authToken === 'string' && reply.authToken.length > 0, `${running.label}: ${intent} returns an authToken`);
  const token = reply.authToken;

  const session = await fetch(`${running.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });
  const sessionText = await session.text();
  const sessionReply = (session.status === 200 ? JSON.parse(sessionText) : {}) as SessionReply;
  check(
    session.status === 200 && sessionReply.userInfo?.title === name,
    `${running.label}: GET /api/auth/session with the bearer names ${name}`,
    `${session.status} ${sessionText.slice(0, 200)}`,
  );
  return token;
}

async function checkDocs(running: RunningBinary): Promise<void> {
  const response = await fetch(`${running.url}/api/documentation/en/index`);
  const page = (await response.json()) as { markdown?: string; lang?: string };
  check(response.status === 200 && page.lang === 'en' && (page.markdown?.length ?? 0) > 0, `${running.label}: the user docs are embedded`, `${response.status}`);
}

async function checkClient(running: RunningBinary): Promise<void> {
  // A known screen's deep link answers 200; a path no screen shows, 404 with the same client (its not-found page).
  for (const [path, status] of [['/', 200], ['/docs/en/', 200], ['/some/deep/link', 404]] as const) {
    const response = await fetch(`${running.url}${path}`);
    const html = await response.text();
    check(
      response.status === status && (response.headers.get('content-type') ?? '').startsWith('text/html') && html.includes('id="root"'),
      `${running.label}: ${path} serves the client's HTML`,
      `${response.status} ${response.headers.get('content-type')}`,
    );
    const policy = response.headers.get('content-security-policy') ?? '';
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map(
      (match) => `'sha256-${new Bun.CryptoHasher('sha256').update(match[1]!).digest('base64')}'`,
    );
    check(
      policy.includes("frame-ancestors 'none'") && !policy.includes('unsafe-inline') && inline.every((hash) => policy.includes(hash)),
      `${running.label}: ${path} has a CSP that allows its inline theme script by hash only, and no framing`,
      policy,
    );
    if (path !== '/') continue;
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]!);
    check(assets.some((asset) => asset.endsWith('.js')), `${running.label}: the HTML links a bundled script`, html.slice(0, 300));
    const scripts: string[] = [];
    for (const asset of assets) {
      const assetResponse = await fetch(`${running.url}${asset}`);
      const body = await assetResponse.text();
      const type = assetResponse.headers.get('content-type') ?? '';
      check(
        assetResponse.status === 200 && !type.startsWith('text/html') && body.length > 0,
        `${running.label}: ${asset} served (${type.split(';')[0]}, ${body.length} bytes)`,
        `${assetResponse.status} ${type}`,
      );
      if (asset.endsWith('.js')) scripts.push(body);
    }
    const firstScript = assets.find((asset) => asset.endsWith('.js'))!;
    const compressed = await fetch(`${running.url}${firstScript}`, { headers: { 'accept-encoding': 'gzip' }, decompress: false } as RequestInit);
    await compressed.arrayBuffer();
    check(
      compressed.headers.get('content-encoding') === 'gzip' && (compressed.headers.get('cache-control') ?? '').includes('immutable'),
      `${running.label}: ${firstScript} is sent gzip-compressed and cached as immutable`,
      `${compressed.headers.get('content-encoding')} ${compressed.headers.get('cache-control')}`,
    );
    const lazyChunks = scripts.flatMap((script) => [...script.matchAll(/import\("(\/chunk-[^"]+\.js)"\)/g)].map((match) => match[1]!));
    check(lazyChunks.length > 0, `${running.label}: routes are code-split into lazily loaded chunks`);
    for (const chunk of lazyChunks) {
      const chunkResponse = await fetch(`${running.url}${chunk}`);
      check(chunkResponse.status === 200 && (await chunkResponse.text()).length > 0, `${running.label}: lazy chunk ${chunk} served`);
    }
    // Production React replaces its messages with numbered "Minified React error" links.
    check(
      scripts.some((script) => script.includes('Minified React error')) && !scripts.some((script) => script.includes('react.development')),
      `${running.label}: the client bundle is React's production build`,
    );
  }
}

/**
 * GET /api/local-app lists the builds of the local-app folder beside the executable (LOCAL_APP_DIR's
 * default in the binary) and serves one with its length; `builds` are the file names put there.
 */
async function checkLocalApp(running: RunningBinary, folder: string, builds: string[]): Promise<void> {
  const response = await fetch(`${running.url}/api/local-app`);
  const listing = (await response.json()) as { downloads?: { platform: string; fileName: string; size: number; url: string }[] };
  const names = (listing.downloads ?? []).map((item) => item.fileName).sort();
  check(
    response.status === 200 && JSON.stringify(names) === JSON.stringify([...builds].sort()),
    `${running.label}: GET /api/local-app lists the local app builds beside the binary (${builds.length})`,
    `${response.status} ${JSON.stringify(listing).slice(0, 300)}`,
  );
  const first = listing.downloads?.[0];
  if (!first) return;
  const size = statSync(join(folder, 'local-app', first.fileName)).size;
  const head = await fetch(first.url.replace(/^https?:\/\/[^/]+/, running.url), { method: 'HEAD' });
  check(
    head.status === 200 && first.size === size && head.headers.get('content-length') === String(size) && (head.headers.get('content-disposition') ?? '').includes(first.fileName),
    `${running.label}: ${first.fileName} is downloadable with its length (${size} bytes)`,
    `${head.status} ${head.headers.get('content-length')} ${head.headers.get('content-disposition')}`,
  );
  await checkDownloadedHelper(running, folder, listing.downloads ?? []);
}

/**
 * A new player on Linux x64: downloads the helper from the running server, trusts the site, starts it,
 * and the site's origin is answered (a page of another origin reads only its not_trusted refusal).
 */
async function checkDownloadedHelper(running: RunningBinary, folder: string, downloads: { platform: string; url: string }[]): Promise<void> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return;
  const build = downloads.find((item) => item.platform === 'linux-x64');
  check(build !== undefined, `${running.label}: the linux-x64 local app is offered`);
  const player = join(folder, 'player');
  mkdirSync(player);
  const file = join(player, 'cartridge-helper');
  const response = await fetch(build.url.replace(/^https?:\/\/[^/]+/, running.url));
  writeFileSync(file, new Uint8Array(await response.arrayBuffer()), { mode: 0o755 });
  chmodSync(file, 0o755);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: player, CARTRIDGE_HELPER_HOME: join(player, 'state'), CARTRIDGE_HELPER_WORKSPACE: join(player, 'Games') };
  const origin = new URL(running.url).origin;
  const trust = await spawnFreshExecutable(() => Bun.spawnSync([file, 'trust', origin], { env, stdout: 'pipe', stderr: 'pipe' }));
  check(trust.exitCode === 0, `${running.label}: the downloaded helper trusts ${origin}`, trust.stderr.toString().slice(0, 300));
  const port = await findFreePort();
  const helper = await spawnFreshExecutable(() => Bun.spawn([file, '--port', String(port)], { env, stdout: 'pipe', stderr: 'pipe' }));
  try {
    let reply: Response | undefined;
    for (let attempt = 0; attempt < 100 && reply === undefined; attempt++) {
      reply = await fetch(`http://127.0.0.1:${port}/?method=version`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' }).catch(() => undefined);
      if (reply === undefined) await Bun.sleep(100);
    }
    const version = (await reply?.json().catch(() => undefined)) as { name?: string } | undefined;
    check(reply?.status === 200 && version?.name === 'cartridge-helper' && reply.headers.get('access-control-allow-origin') === origin, `${running.label}: the downloaded helper answers the trusted site`, `${reply?.status} ${JSON.stringify(version)}`);
    const foreign = await fetch(`http://127.0.0.1:${port}/?method=workdir_list`, { method: 'POST', headers: { origin: 'https://elsewhere.example', 'content-type': 'application/json' }, body: '{}' });
    const refusal = (await foreign.json()) as { code?: string };
    check(foreign.status === 403 && refusal.code === 'not_trusted', `${running.label}: the downloaded helper refuses another site`, `${foreign.status} ${JSON.stringify(refusal)}`);
  } finally {
    helper.kill();
    await helper.exited;
  }
}

/**
 * Runs a just-written executable. Linux refuses exec with ETXTBSY while any process still holds a
 * writable descriptor of the file, which a child forked elsewhere in this process at the moment of the
 * write can keep until its own exec; the refusal passes within moments, so it is retried briefly.
 */
async function spawnFreshExecutable<T>(spawn: () => T): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return spawn();
    } catch (error) {
      if ((error as { code?: string }).code !== 'ETXTBSY' || attempt >= 50) throw error;
      await Bun.sleep(100);
    }
  }
}

/** `cartridge admin ...` of the binary, with the clean environment the server got (no server running). */
async function runAdmin(folder: string, env: Record<string, string>, args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([join(folder, 'cartridge'), 'admin', ...args], {
    cwd: folder,
    env: { PATH: '/usr/bin:/bin', HOME: folder, TMPDIR: folder, LOG_LEVEL: 'error', ...env },
    stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** On a user who is not the administrator (who holds every privilege whatever the table says). */
async function checkAdmin(folder: string, env: Record<string, string>, member: string): Promise<void> {
  const granted = await runAdmin(folder, env, ['grant', member, 'cloud_play']);
  check(
    granted.code === 0 && granted.stdout === `${member} (${member}): create_project, cloud_play\n`,
    "cartridge admin grant: changes the stopped instance's database",
    `${granted.code} ${granted.stdout}${granted.stderr}`,
  );
  const revoked = await runAdmin(folder, env, ['revoke', member, 'cloud_play']);
  check(revoked.code === 0 && revoked.stdout === `${member} (${member}): create_project\n`, 'cartridge admin revoke: takes it back', `${revoked.code} ${revoked.stdout}${revoked.stderr}`);
  const unknown = await runAdmin(folder, env, ['grant', 'nobody-here', 'cloud_play']);
  check(unknown.code === 1 && unknown.stderr === 'cartridge: user not found\n', 'cartridge admin: an unknown user exits 1', `${unknown.code} ${unknown.stderr}`);
  const usage = await runAdmin(folder, env, ['grant', member]);
  check(usage.code === 2 && usage.stdout.includes('cartridge admin grant USER PRIVILEGE'), 'cartridge admin: wrong usage prints the usage, exit 2', `${usage.code}`);
}

/** `cartridge admin set-password USER`, the new password piped in as one line; a weak one refused first. */
async function checkSetPassword(folder: string, env: Record<string, string>, user: string, newPassword: string): Promise<void> {
  const weak = await runAdmin(folder, env, ['set-password', user], 'short\n');
  check(weak.code === 1 && weak.stderr === 'cartridge: Invalid `password`: it must be at least 8 characters\n', 'cartridge admin set-password: a weak password is refused, exit 1', `${weak.code} ${weak.stderr}`);
  const set = await runAdmin(folder, env, ['set-password', user], `${newPassword}\n`);
  check(set.code === 0 && set.stdout.includes(`can now sign in as ${user} with the new password`), 'cartridge admin set-password: sets the password from stdin', `${set.code} ${set.stdout}${set.stderr}`);
}

/**
 * The content image paste flow against the binary (sharp's addon and libvips load from the
 * image-library folder beside it): create, part 0, finalize a PNG, then GET a size in each format.
 */
/** A second server and an admin command on a running instance's data folder refuse, naming the folder and its pid. */
async function checkDataFolderLock(folder: string, dataDir: string, running: RunningBinary): Promise<void> {
  const sentence = `cartridge: the data folder ${dataDir} is in use by process ${running.process.pid} `;
  const port = await findFreePort();
  const second = Bun.spawn([join(folder, 'cartridge')], {
    cwd: folder,
    env: { PATH: '/usr/bin:/bin', HOME: folder, TMPDIR: folder, PORT: String(port), PLAY_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'error', DATA_DIR: dataDir },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => second.kill('SIGKILL'), startTimeoutMs);
  const [stderr, code] = await Promise.all([new Response(second.stderr).text(), second.exited]);
  clearTimeout(timer);
  check(code === 2 && stderr.startsWith(sentence), 'a second server on the same data folder exits 2 naming the folder and the pid', `${code} ${stderr}`);
  const admin = await runAdmin(folder, { DATA_DIR: dataDir }, ['machine', 'list']);
  check(admin.code === 1 && admin.stderr.startsWith(sentence), 'cartridge admin on a data folder in use exits 1 naming it', `${admin.code} ${admin.stderr}`);
}

async function checkContentImages(running: RunningBinary, token: string): Promise<void> {
  const call = async (method: string, path: string, json?: unknown) => {
    const response = await fetch(`${running.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) }, body: json === undefined ? undefined : JSON.stringify(json) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const project = await call('POST', '/api/projects', { title: 'Smoke images' });
  check(project.status === 200, `${running.label}: POST /api/projects 200`, `${project.status} ${JSON.stringify(project.body)}`);
  const png = await sharp({ create: { width: 800, height: 450, channels: 3, background: { r: 40, g: 90, b: 160 } } }).png().toBuffer();
  const created = await call('POST', `/api/projects/${project.body.id}/content/images`, { size: png.length, width: 800, height: 450 });
  check(created.status === 200, `${running.label}: POST .../content/images 200`, `${created.status} ${JSON.stringify(created.body)}`);
  const hash = new Bun.CryptoHasher('sha1').update(png).digest('hex');
  const uploadUrl = String(created.body.uploadInfo.uploadUrl).replace(/^https?:\/\/[^/]+/, running.url);
  const part = await fetch(`${uploadUrl}?token=${encodeURIComponent(created.body.uploadInfo.token)}&part=0&hash=${hash}`, { method: 'PUT', body: png });
  check(part.status === 200, `${running.label}: the image's part 0 is stored`, `${part.status} ${await part.text()}`);
  const finalized = await call('PUT', `/api/projects/${project.body.id}/content/images/${created.body.id}/finalize`, { token: created.body.uploadInfo.token, parts: [{ part: 0, hash, size: png.length }] });
  check(
    finalized.status === 200 && finalized.body.width === 800 && finalized.body.height === 450,
    `${running.label}: finalize decodes and encodes the image with sharp from image-library/`,
    `${finalized.status} ${JSON.stringify(finalized.body)}`,
  );
  for (const [accept, format] of [['image/avif', 'heif'], ['image/webp', 'webp'], ['*/*', 'jpeg']] as const) {
    const response = await fetch(`${running.url}/content-images/${created.body.id}/640`, { headers: { accept } });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const metadata = response.status === 200 ? await sharp(bytes).metadata() : undefined;
    // A modern format may be left out when JPEG is smaller; the answer is always an image of the width asked.
    check(
      response.status === 200 && metadata?.width === 640 && (metadata.format === format || metadata.format === 'jpeg') && response.headers.get('cache-control')?.includes('immutable') === true,
      `${running.label}: GET /content-images/{id}/640 (Accept ${accept}) is a ${metadata?.format} image 640 wide`,
      `${response.status} ${response.headers.get('content-type')}`,
    );
  }
}

function logTail(running: RunningBinary): string {
  const parts = [running.logPath, `${running.logPath}.err`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path, 'utf8').trim())
    .filter(Boolean);
  return parts.join('\n').split('\n').slice(-30).join('\n');
}

async function main(): Promise<void> {
  if (!existsSync(binarySource)) throw new SmokeFailure(`${binarySource} does not exist: run npm run build first`);
  const folder = mkdtempSync(join(tmpdir(), 'cartridge-smoke-'));
  const admin = postgres(adminDatabaseUrl, { max: 1, onnotice: () => {} });
  const databaseName = `cartridge_smoke_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  let databaseCreated = false;
  try {
    copyFileSync(binarySource, join(folder, 'cartridge'));
    const dataDir = join(folder, 'data');
    const name = `smoke${Math.random().toString(36).slice(2, 8)}`;
    const password = `smoke-password-${Math.random().toString(36).slice(2)}`;

    console.log(`binary smoke: ${binarySource} in ${folder}`);
    // npm run build puts the local app's builds in local-app beside the binary: they travel with it
    // (linked here rather than copied: five builds are half a gigabyte).
    const helperSource = join(dirname(binarySource), 'local-app');
    const helperBuilds = existsSync(helperSource) ? readdirSync(helperSource).filter((file) => /^cartridge-helper-[a-z0-9-]+(\.exe)?$/.test(file)) : [];
    mkdirSync(join(folder, 'local-app'));
    for (const file of helperBuilds) symlinkSync(join(helperSource, file), join(folder, 'local-app', file));
    check(helperBuilds.length > 0, `the local app's builds are beside the binary (npm run build makes them in ${helperSource})`);
    // So is the image library (sharp's addon and libvips), linked like the local app.
    const imageLibrary = join(dirname(binarySource), 'image-library');
    check(existsSync(imageLibrary), `the image library is beside the binary (npm run build copies it to ${imageLibrary})`);
    symlinkSync(imageLibrary, join(folder, 'image-library'));
    const first = await startBinary('pglite first start', folder, { DATA_DIR: dataDir });
    const firstToken = await signIn(first, name, password, 'register');
    await checkDataFolderLock(folder, dataDir, first);
    await checkContentImages(first, firstToken);
    await checkClient(first);
    await checkDocs(first);
    await checkLocalApp(first, folder, helperBuilds);
    await stopBinary(first);

    const second = await startBinary('pglite restart', folder, { DATA_DIR: dataDir });
    await signIn(second, name, password, 'login');
    await signIn(second, `${name}m`, password, 'register');
    await stopBinary(second);
    await checkAdmin(folder, { DATA_DIR: dataDir }, `${name}m`);
    await checkSetPassword(folder, { DATA_DIR: dataDir }, `${name}m`, `${password} reset`);

    try {
      await admin.unsafe(`create database "${databaseName}"`);
    } catch (error) {
      throw new SmokeFailure(`cannot create a database on ${adminDatabaseUrl} (set SMOKE_DATABASE_URL): ${error instanceof Error ? error.message : String(error)}`);
    }
    databaseCreated = true;
    const databaseUrl = new URL(adminDatabaseUrl);
    databaseUrl.pathname = `/${databaseName}`;
    const postgresEnv = { DATA_DIR: join(folder, 'data-postgres'), DATABASE_URL: databaseUrl.toString() };
    const third = await startBinary('postgres first start', folder, postgresEnv);
    await signIn(third, name, password, 'register');
    await checkClient(third);
    await stopBinary(third);
    await checkSetPassword(folder, postgresEnv, name, `${password} reset`);

    const fourth = await startBinary('postgres restart', folder, postgresEnv);
    await signIn(fourth, name, `${password} reset`, 'login');
    await stopBinary(fourth);
  } finally {
    if (current) {
      const running = current;
      running.process.kill('SIGKILL');
      await running.process.exited;
      const tail = logTail(running);
      if (tail) console.error(`--- ${running.label} log (last lines) ---\n${tail}\n---`);
    }
    if (databaseCreated) await admin.unsafe(`drop database if exists "${databaseName}" with (force)`).catch(() => {});
    await admin.end({ timeout: 5 });
    rmSync(folder, { recursive: true, force: true });
  }
}

try {
  await main();
  console.log(`binary smoke: ${passed} passed, 0 failed`);
} catch (error) {
  const message = error instanceof SmokeFailure ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`FAIL ${message}`);
  console.error(`binary smoke: ${passed} passed, 1 failed`);
  process.exit(1);
}
