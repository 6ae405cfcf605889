import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { rawRequest, startHelper, waitFor, type HelperProcess } from './helper-process.ts';

/** Who may call the helper: Host (DNS rebinding), Origin (trusted pages only), CORS and preflights, download origins. */
const trusted = 'https://cartridge.example';
const foreign = 'https://evil.example';
let helper: HelperProcess;
let workdirId: string;

const transitionInput = (id: string, packageUrl: string) => ({
  id,
  package_url: packageUrl,
  project_id: 'p1',
  branch_id: 'b1',
  version_id: 'v1',
  package_id: 'k1',
  project_title: 'Game',
  branch_title: 'stable',
  version_title: '1.0',
  package_title: 'Linux',
  package_size: 10,
  package_entrypoint: ['game.sh'],
});

beforeAll(async () => {
  helper = await startHelper({ state: { version: 1, workspaces: [], workdirs: [], trusted_origins: [trusted] } });
  helper.cli(['workspace', 'add', join(helper.root, 'Games')]);
  const workspace = helper.readState().workspaces[0].id;
  workdirId = (await helper.call('workdir_add', { workspace, name: 'Game' })).body.id;
});
afterAll(async () => {
  await helper.stop();
});

describe('Host header', () => {
  const request = (host: string, method = 'POST') =>
    rawRequest(helper.port, `${method} /?method=version HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);

  test('127.0.0.1:PORT and localhost:PORT are answered', async () => {
    expect((await request(`127.0.0.1:${helper.port}`)).status).toBe(200);
    expect((await request(`localhost:${helper.port}`)).status).toBe(200);
  });

  test('any other Host is 403 bad_host (DNS rebinding), with no CORS header', async () => {
    for (const host of ['evil.example', `evil.example:${helper.port}`, '127.0.0.1', `127.0.0.1:${helper.port + 1}`, `localhost.evil.example:${helper.port}`, `[::1]:${helper.port}`, `0.0.0.0:${helper.port}`]) {
      const reply = await request(host);
      expect(reply.status, host).toBe(403);
      expect(JSON.parse(reply.body).code).toBe('bad_host');
      expect(reply.head.toLowerCase()).not.toContain('access-control-allow-origin');
    }
  });

  test('a rebinding preflight is refused too', async () => {
    const reply = await rawRequest(helper.port, `OPTIONS /?method=workdir_add HTTP/1.1\r\nHost: evil.example:${helper.port}\r\nOrigin: ${trusted}\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\n\r\n`);
    expect(reply.status).toBe(403);
    expect(reply.head.toLowerCase()).not.toContain('access-control-allow-origin');
  });

  test('listens on 127.0.0.1 only', async () => {
    const interfaces = Object.values((await import('node:os')).networkInterfaces())
      .flat()
      .filter((item) => item && item.family === 'IPv4' && !item.internal);
    for (const item of interfaces) {
      const failed = await fetch(`http://${item!.address}:${helper.port}/?method=version`, { method: 'POST', signal: AbortSignal.timeout(2000) }).then(
        () => false,
        () => true,
      );
      expect(failed, item!.address).toBe(true);
    }
  });
});

describe('Origin and CORS', () => {
  test('a trusted page gets its exact origin back, Vary: Origin, never *', async () => {
    const reply = await helper.call('workspace_list', {}, { origin: trusted });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe(trusted);
    expect(reply.headers.get('vary')).toBe('Origin');
    // Refusals of a trusted page carry CORS headers too, so the page can read them.
    const refused = await helper.call('workdir_launch', { id: 'missing' }, { origin: trusted });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('access-control-allow-origin')).toBe(trusted);
  });

  test('a foreign page is 403 not_trusted, readable by that page only (its origin echoed), with the command; nothing changes', async () => {
    const before = helper.readState();
    const reply = await helper.call('workdir_add', { workspace: 'default', name: 'Evil' }, { origin: foreign });
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe('not_trusted');
    expect(reply.body.details).toEqual({ origin: foreign });
    expect(reply.body.message).toContain(`cartridge-helper trust ${foreign}`);
    expect(reply.headers.get('access-control-allow-origin')).toBe(foreign);
    expect(reply.headers.get('vary')).toBe('Origin');
    expect(helper.readState()).toEqual(before);
    // Every method is refused alike: a foreign page learns nothing but the refusal.
    for (const method of ['version', 'workspace_list', 'workdir_list', 'transition_status']) {
      const read = await helper.call(method, {}, { origin: foreign });
      expect(read.status, method).toBe(403);
      expect(Object.keys(read.body).sort()).toEqual(['code', 'details', 'message']);
    }
    // The helper logs the refusal once, and never offers to trust the page that called (any site can call).
    await waitFor(() => (helper.readLog().includes(`Refused a page of ${foreign}: not trusted`) ? true : undefined), 5000, 'the log line');
    expect(helper.readLog().split(`Refused a page of ${foreign}`).length).toBe(2);
    expect(helper.readLog()).not.toContain(`cartridge-helper trust ${foreign}`);
  });

  test('near misses of the trusted origin are not trusted', async () => {
    for (const origin of ['http://cartridge.example', 'https://cartridge.example:8443', 'https://sub.cartridge.example', 'https://cartridge.example.evil.example']) {
      const reply = await helper.call('version', {}, { origin });
      expect(reply.status, origin).toBe(403);
      expect(reply.body.code).toBe('not_trusted');
    }
  });

  test('Origin: null and malformed origins are bad_origin', async () => {
    for (const origin of ['null', 'file://', 'chrome-extension://abc', 'https://cartridge.example/', 'HTTPS://CARTRIDGE.EXAMPLE', 'garbage']) {
      const reply = await helper.call('version', {}, { origin });
      expect(reply.status, origin).toBe(403);
      expect(reply.body.code, origin).toBe('bad_origin');
      expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  test('preflight of a trusted page: POST, content-type, private network access', async () => {
    const response = await fetch(`${helper.url}/?method=workdir_add`, {
      method: 'OPTIONS',
      headers: { origin: trusted, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type', 'access-control-request-private-network': 'true' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(trusted);
    expect(response.headers.get('access-control-allow-methods')).toBe('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(response.headers.get('access-control-allow-private-network')).toBe('true');
    expect(response.headers.get('vary')).toBe('Origin');
  });

  test('preflight of a foreign page passes (so its POST gets the readable refusal); the trust question is asked on the POST', async () => {
    const response = await fetch(`${helper.url}/?method=workdir_add`, {
      method: 'OPTIONS',
      headers: { origin: foreign, 'access-control-request-method': 'POST', 'access-control-request-private-network': 'true' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(foreign);
    expect(response.headers.get('access-control-allow-methods')).toBe('POST');
    expect(response.headers.get('access-control-allow-private-network')).toBe('true');
  });

  test('trusting from the command line while the helper runs takes effect at once; untrust ends it', async () => {
    const page = 'https://later.example';
    expect((await helper.call('version', {}, { origin: page })).status).toBe(403);
    const trust = helper.cli(['trust', page]);
    expect(trust.exitCode).toBe(0);
    expect((await helper.call('version', {}, { origin: page })).status).toBe(200);
    expect(helper.cli(['untrust', page]).exitCode).toBe(0);
    expect((await helper.call('version', {}, { origin: page })).status).toBe(403);
  });

  test('a request without Origin (a local program) is answered', async () => {
    expect((await helper.call('workspace_list')).status).toBe(200);
  });
});

describe('download origins', () => {
  test('a package_url outside the trusted origins is 403 untrusted_url, and the workdir is unchanged', async () => {
    const before = helper.readState();
    for (const url of [`${foreign}/api/files/x`, 'http://cartridge.example/api/files/x', 'file:///etc/passwd', 'ftp://cartridge.example/x']) {
      const reply = await helper.call('workdir_transition', transitionInput(workdirId, url), { origin: trusted });
      expect(reply.status, url).toBe(403);
      expect(reply.body.code, url).toBe('untrusted_url');
      expect(reply.body.details.field).toBe('package_url');
    }
    expect(helper.readState()).toEqual(before);
  });

  test('an index_url outside the trusted origins is 403 untrusted_url; one that is not a URL is bad_param', async () => {
    const before = helper.readState();
    for (const url of [`${foreign}/api/files/x/index`, 'file:///etc/passwd']) {
      const reply = await helper.call('workdir_transition', { ...transitionInput(workdirId, `${trusted}/x`), index_url: url }, { origin: trusted });
      expect(reply.status, url).toBe(403);
      expect(reply.body.code, url).toBe('untrusted_url');
      expect(reply.body.details.field).toBe('index_url');
    }
    const reply = await helper.call('workdir_transition', { ...transitionInput(workdirId, `${trusted}/x`), index_url: 'not a url' }, { origin: trusted });
    expect(reply.status).toBe(400);
    expect(reply.body.details.field).toBe('index_url');
    expect(helper.readState()).toEqual(before);
  });

  test('a package_url that is not a URL is bad_param', async () => {
    const reply = await helper.call('workdir_transition', transitionInput(workdirId, 'not a url'), { origin: trusted });
    expect(reply.status).toBe(400);
    expect(reply.body.details.field).toBe('package_url');
  });

  test('an entrypoint part that is a path is bad_param', async () => {
    for (const entrypoint of [['..', 'x'], ['a/b'], ['/etc/passwd'], ['x\u0000']]) {
      const reply = await helper.call('workdir_transition', { ...transitionInput(workdirId, `${trusted}/x`), package_entrypoint: entrypoint }, { origin: trusted });
      expect(reply.status, JSON.stringify(entrypoint)).toBe(400);
      expect(reply.body.details.field).toStartWith('package_entrypoint');
    }
  });

  test('repair with an untrusted package_url is untrusted_url (checked before anything runs)', async () => {
    const reply = await helper.call('workdir_repair', { id: workdirId, package_url: `${foreign}/x` }, { origin: trusted });
    // Nothing is installed: not_installed comes first.
    expect(reply.body.code).toBe('not_installed');
    expect(existsSync(join(helper.root, 'Games', 'Game'))).toBe(true);
  });
});
