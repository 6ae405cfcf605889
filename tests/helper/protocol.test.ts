import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_HELPER_PROTOCOL, localHelperMethods, versionReplySchema, workdirSchema } from '../../src/shared/schemas/local-helper.ts';
import { writeExecutable } from '../support/executable-file.ts';
import { startHelper, waitFor, type HelperProcess } from './helper-process.ts';

/** The protocol's methods over HTTP against a real helper process (no package is installed here). */
let helper: HelperProcess;
let binDir: string;
let binRoot: string;

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'cartridge-helper-bin-'));
  binRoot = root;
  binDir = join(root, 'bin');
  mkdirSync(binDir, { recursive: true });
  // A fake file manager: records the folder it was asked to open.
  // Written aside and renamed, so the test never reads the file between its creation and its write.
  writeExecutable(join(binDir, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > "${root}/opened.part" && mv "${root}/opened.part" "${root}/opened"\n`);
  helper = await startHelper({ env: { PATH: `${binDir}:${process.env.PATH}` } });
});
afterAll(async () => {
  await helper.stop();
  rmSync(binRoot, { recursive: true, force: true });
});

describe('read methods', () => {
  test('version names the helper, its version, protocol, platform and arch', async () => {
    const reply = await helper.call('version');
    expect(reply.status).toBe(200);
    expect(versionReplySchema.parse(reply.body)).toEqual({
      name: 'cartridge-helper',
      version: (await Bun.file(join(import.meta.dir, '../../package.json')).json()).version,
      protocol: LOCAL_HELPER_PROTOCOL,
      platform: process.platform,
      arch: process.arch,
    });
    expect(reply.headers.get('content-type')).toContain('application/json');
    expect(reply.headers.get('cache-control')).toBe('no-store');
  });

  test('an empty body counts as {} for methods without input', async () => {
    const response = await fetch(`${helper.url}/?method=version`, { method: 'POST' });
    expect(response.status).toBe(200);
  });

  test('workspace_list starts with the default workspace (CARTRIDGE_HELPER_WORKSPACE)', async () => {
    const reply = await helper.call('workspace_list');
    expect(reply.body).toEqual([{ id: 'default', local_path: helper.workspace }]);
  });

  test('transition_status is null when nothing runs; an unknown workdir is not_found', async () => {
    expect((await helper.call('transition_status')).body).toBeNull();
    const unknown = await helper.call('transition_status', { id: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
  });
});

describe('workdir_add, workdir_list, workdir_delete', () => {
  test('adds a workdir: its folder and private folder exist, it lists as empty', async () => {
    const added = await helper.call('workdir_add', { workspace: 'default', name: 'Space Game' });
    expect(added.status).toBe(200);
    const id = added.body.id as string;
    expect(existsSync(join(helper.workspace, 'Space Game'))).toBe(true);
    expect(existsSync(join(helper.workspace, '.cartridge', id))).toBe(true);
    const list = await helper.call('workdir_list');
    const workdir = workdirSchema.parse(list.body.find((item: { id: string }) => item.id === id));
    expect(workdir).toEqual({ id, workspace_id: 'default', local_path: join(helper.workspace, 'Space Game'), state: 'empty', size: 0, entrypoint: [], running: false });
    const saved = helper.readState();
    expect(saved.workdirs.find((item: { id: string }) => item.id === id).name).toBe('Space Game');
  });

  test('the same name again is name_conflict; so is a folder with content that is not ours, and .cartridge', async () => {
    const again = await helper.call('workdir_add', { workspace: 'default', name: 'Space Game' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('name_conflict');
    mkdirSync(join(helper.workspace, 'Mine'), { recursive: true });
    writeFileSync(join(helper.workspace, 'Mine', 'notes.txt'), 'mine');
    const occupied = await helper.call('workdir_add', { workspace: 'default', name: 'Mine' });
    expect(occupied.status).toBe(409);
    expect(occupied.body.code).toBe('name_conflict');
    expect(readFileSync(join(helper.workspace, 'Mine', 'notes.txt'), 'utf8')).toBe('mine');
    writeFileSync(join(helper.workspace, 'a-file'), 'x');
    expect((await helper.call('workdir_add', { workspace: 'default', name: 'a-file' })).body.code).toBe('name_conflict');
    expect((await helper.call('workdir_add', { workspace: 'default', name: '.cartridge' })).body.code).toBe('name_conflict');
  });

  test('an existing empty folder is taken', async () => {
    mkdirSync(join(helper.workspace, 'Empty'), { recursive: true });
    expect((await helper.call('workdir_add', { workspace: 'default', name: 'Empty' })).status).toBe(200);
  });

  test('names that are paths or carry control characters are bad_param naming the field; nothing is created', async () => {
    for (const name of ['../escape', 'a/b', 'a\\b', '..', '.', '', 'nul\u0000byte', 'line\nbreak', 'tab\there', ' padded', 'x'.repeat(256), 'con', 'trailing.', 'a:b', 'del\u007f']) {
      const reply = await helper.call('workdir_add', { workspace: 'default', name });
      expect(reply.status, JSON.stringify(name)).toBe(400);
      expect(reply.body.code).toBe('bad_param');
      expect(reply.body.details.field).toBe('name');
    }
    expect(existsSync(join(helper.workspace, '..', 'escape'))).toBe(false);
    expect(existsSync(join(helper.workspace, 'a'))).toBe(false);
  });

  test('an unknown workspace is not_found', async () => {
    const reply = await helper.call('workdir_add', { workspace: 'nope', name: 'x' });
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ code: 'not_found', details: { workspace: 'nope' } });
  });

  test('workdir_delete without deleteFiles forgets the record and leaves the files', async () => {
    const { body } = await helper.call('workdir_add', { workspace: 'default', name: 'Forget Me' });
    writeFileSync(join(helper.workspace, 'Forget Me', 'save.dat'), 'progress');
    expect((await helper.call('workdir_delete', { id: body.id })).body).toEqual({ ok: true });
    const list = await helper.call('workdir_list');
    expect(list.body.some((item: { id: string }) => item.id === body.id)).toBe(false);
    expect(readFileSync(join(helper.workspace, 'Forget Me', 'save.dat'), 'utf8')).toBe('progress');
    expect((await helper.call('workdir_delete', { id: body.id })).status).toBe(404);
  });

  test('methods on an unknown workdir are not_found', async () => {
    for (const method of ['workdir_launch', 'workdir_cancel', 'workdir_show_folder', 'workdir_repair', 'workdir_delete']) {
      const reply = await helper.call(method, { id: 'missing' });
      expect(reply.status, method).toBe(404);
      expect(reply.body.code).toBe('not_found');
    }
  });

  test('launch and repair before anything is installed are not_installed; cancel with nothing running is ok', async () => {
    const { body } = await helper.call('workdir_add', { workspace: 'default', name: 'Not Yet' });
    const launch = await helper.call('workdir_launch', { id: body.id });
    expect(launch.status).toBe(409);
    expect(launch.body.code).toBe('not_installed');
    expect((await helper.call('workdir_repair', { id: body.id })).body.code).toBe('not_installed');
    expect((await helper.call('workdir_cancel', { id: body.id })).body).toEqual({ ok: true });
  });

  test('workdir_show_folder runs the file manager with the folder (argv, no shell)', async () => {
    const { body } = await helper.call('workdir_add', { workspace: 'default', name: "Quote's $(touch pwned) Folder" });
    expect((await helper.call('workdir_show_folder', { id: body.id })).body).toEqual({ ok: true });
    const opened = join(binDir, '..', 'opened');
    const path = await waitFor(() => (existsSync(opened) ? readFileSync(opened, 'utf8') : undefined), 5000, 'the file manager');
    expect(path).toBe(join(helper.workspace, "Quote's $(touch pwned) Folder"));
    expect(existsSync(join(helper.workspace, "Quote's $(touch pwned) Folder", 'pwned'))).toBe(false);
  });
});

describe('bad requests', () => {
  test('an unknown method is unknown_method (404), naming the known ones', async () => {
    const reply = await helper.call('drop_tables');
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('unknown_method');
    expect(reply.body.details.methods).toEqual(Object.keys(localHelperMethods));
    expect((await helper.call('')).body.code).toBe('unknown_method');
    expect((await helper.call('__proto__')).body.code).toBe('unknown_method');
    expect((await helper.call('toString')).body.code).toBe('unknown_method');
  });

  test('GET, PUT, DELETE are 405 method_not_allowed and change nothing', async () => {
    const before = helper.readState();
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const response = await fetch(`${helper.url}/?method=workdir_add`, { method, ...(method === 'GET' ? {} : { body: JSON.stringify({ workspace: 'default', name: 'ByGet' }) }) });
      expect(response.status, method).toBe(405);
      expect((await response.json()).code).toBe('method_not_allowed');
      expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    }
    expect(helper.readState()).toEqual(before);
    expect(existsSync(join(helper.workspace, 'ByGet'))).toBe(false);
  });

  test('another path is not_found', async () => {
    const response = await fetch(`${helper.url}/api/version?method=version`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
  });

  test('wrong types, missing and unknown fields are bad_param naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['workdir_add', { workspace: 'default' }, 'name'],
      ['workdir_add', { workspace: 5, name: 'x' }, 'workspace'],
      ['workdir_add', { workspace: 'default', name: ['x'] }, 'name'],
      ['workdir_add', { workspace: 'default', name: 'x', extra: true }, 'body'],
      ['workdir_launch', {}, 'id'],
      ['workdir_launch', { id: '../x' }, 'id'],
      ['workdir_delete', { id: 'x', deleteFiles: 'yes' }, 'deleteFiles'],
      ['transition_status', { id: 7 }, 'id'],
      ['version', { any: 1 }, 'body'],
      ['workdir_list', [], 'body'],
      ['workdir_add', 'null', 'body'],
      ['workdir_transition', { id: 'x' }, 'project_id'],
    ];
    for (const [method, body, field] of cases) {
      const reply = await helper.call(method, body);
      expect(reply.status, `${method} ${JSON.stringify(body)}`).toBe(400);
      expect(reply.body.code).toBe('bad_param');
      expect(reply.body.details.field, `${method} ${JSON.stringify(body)}`).toBe(field);
    }
  });

  test('a body that is not JSON or not UTF-8 is bad_param', async () => {
    expect((await helper.call('workdir_add', '{"workspace":')).body.code).toBe('bad_param');
    const response = await fetch(`${helper.url}/?method=workdir_add`, { method: 'POST', body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) });
    expect(response.status).toBe(400);
    expect((await response.json()).message).toContain('UTF-8');
  });

  test('a huge body is refused with 413 (by Content-Length and while streaming)', async () => {
    const huge = JSON.stringify({ workspace: 'default', name: 'x'.repeat(200 * 1024) });
    const reply = await helper.call('workdir_add', huge);
    expect(reply.status).toBe(413);
    expect(reply.body.code).toBe('bad_param');
    // Chunked, without Content-Length, and never finished: the 413 comes once the limit is passed.
    const answer = await new Promise<string>((resolveAnswer, reject) => {
      const socket = connect(helper.port, '127.0.0.1');
      let data = '';
      socket.setEncoding('utf8');
      socket.on('connect', () => {
        socket.write(`POST /?method=version HTTP/1.1\r\nHost: 127.0.0.1:${helper.port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
        const chunk = ' '.repeat(16 * 1024);
        for (let index = 0; index < 6; index++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      });
      socket.on('data', (text) => {
        data += text;
        if (data.includes('\r\n\r\n')) {
          socket.destroy();
          resolveAnswer(data);
        }
      });
      socket.on('error', reject);
      socket.setTimeout(5000, () => socket.destroy(new Error('no answer to an unfinished huge body')));
    });
    expect(answer).toStartWith('HTTP/1.1 413');
  });

  test('a deeply nested body is refused (400) before it is parsed', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const started = performance.now();
    const reply = await helper.call('workdir_add', deep);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('bad_param');
    expect(reply.body.message).toContain('nested');
    expect(performance.now() - started).toBeLessThan(2000);
    // Brackets inside strings do not count.
    const inString = await helper.call('workdir_add', { workspace: 'default', name: '['.repeat(100) });
    expect(inString.status).toBe(200);
  });
});
