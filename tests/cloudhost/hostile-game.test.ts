import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { agentCapabilities } from '../../cloudhost/src/privileges.ts';
import { mountsBelow } from '../../cloudhost/src/session-disk.ts';
import type { CreatedCloudSession } from '../../src/shared/schemas/cloud-play.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { processesOfUids, startCloudAgent, type RunningCloudAgent } from '../support/cloud-agent.ts';
import { buildHostileGame, requireHostPrograms } from '../support/cloudhost-tools.ts';
import { findFreePort as freePort } from '../support/free-port.ts';
import { uploadPackage } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * A hostile game run by the real agent in the real sandbox (issue 27's corpus): it tries the ways out
 * an outside probe found (module loading in the sound server, a font server the X server dials, the
 * sandbox's own map in /proc), the system calls container runtimes refuse, filling the disk, and
 * signalling a process outside; see tests/cloudhost/fixtures/hostile-game.c. It writes what happened
 * to its home; the test reads that from the host and checks the host itself.
 */
let server: TestServer;
let admin: TestUser;
let project: TestProject;
let agent: RunningCloudAgent;
let listener: Server;
let sleeper: ChildProcess;
const connections: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'cloudhost-hostile-'));
const nonce = `${process.pid}-${Date.now()}`;
const marker = join(tmpdir(), `cartridge-hostile-${nonce}.marker`);
const fifo = join(tmpdir(), `cartridge-hostile-${nonce}.fifo`);
const pidFile = join(scratch, 'sleeper.pid');
/** A uid range no other test's agent uses: session 0's game runs as uidBase. */
const uidBase = 200_000 + Math.floor(Math.random() * 700_000);
const quotaMb = 64;
const shmMb = 32;
const fillMb = 200;
const repoRoot = resolve(import.meta.dir, '..', '..');

let report: Map<string, string>;
let procText: string;
let session: CreatedCloudSession;
let freeBefore = 0;
let freeAfter = 0;
let pulsePort = 0;
let shmTarget: ChildProcess | undefined;
let shmVerdict: () => Promise<string>;
const fontDir = join(scratch, 'fonts');
const fontAlias = `cartridge-secret-${process.pid}-${Date.now()}`;

/** A child's stdout, a line at a time. */
function lines(child: ChildProcess): { next(): Promise<string> } {
  let buffered = '';
  const waiting: ((line: string) => void)[] = [];
  const ready: string[] = [];
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (text: string) => {
    buffered += text;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else ready.push(line);
    }
  });
  return { next: () => (ready.length > 0 ? Promise.resolve(ready.shift()!) : new Promise((resolve) => waiting.push(resolve))) };
}

const freeBytes = (path: string) => {
  const stats = statfsSync(path);
  return stats.bavail * stats.bsize;
};

/** Waits for `check`; gives up at the deadline or, while the session should be running, once it has ended. */
async function waitUntil(check: () => boolean, what: string, timeoutMs = 60_000, whileRunning = true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline || (whileRunning && agent.logs.some((line) => / (ended|errored) \(/.test(line)))) throw new Error(`${what}: not within ${timeoutMs} ms; agent log:\n${agent.logs.slice(-25).join('\n')}`);
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  requireHostPrograms();
  listener = createServer((socket) => {
    connections.push(`${socket.remoteAddress}:${socket.remotePort}`);
    socket.destroy();
  });
  await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
  const port = (listener.address() as { port: number }).port;
  pulsePort = await freePort();

  // A process outside the sandbox, of the very uid the game runs as: the game must not reach it.
  sleeper = spawn('setpriv', [`--reuid=${uidBase}`, `--regid=${uidBase}`, '--clear-groups', 'sleep', '3600'], { stdio: 'ignore' });
  writeFileSync(pidFile, `${sleeper.pid}\n`);

  const game = buildHostileGame(scratch, { marker, pidFile });
  // A host folder whose fonts.alias names a font nobody else has, and a host memory segment open to all.
  mkdirSync(fontDir);
  writeFileSync(join(fontDir, 'fonts.dir'), '0\n');
  writeFileSync(join(fontDir, 'fonts.alias'), `${fontAlias} fixed\n`);
  shmTarget = spawn(game.shmTarget, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const shmLines = lines(shmTarget);
  const shmId = Number(await shmLines.next());
  expect(shmId).toBeGreaterThanOrEqual(0);
  shmVerdict = async () => {
    shmTarget!.stdin!.write('check\n');
    return shmLines.next();
  };
  server = await startTestServer({ CLOUD_PLAY_WIDTH: '320', CLOUD_PLAY_HEIGHT: '240', CLOUD_PLAY_FPS: '10', CLOUD_PLAY_CONNECT_SECONDS: '300', CLOUD_PLAY_IDLE_SECONDS: '600' });
  admin = await registerUser(server);
  project = await createProject(server, admin);
  const attack = [
    `port ${port}`,
    `pulse_port ${pulsePort}`,
    `fifo ${fifo}`,
    'plugin plugin.so',
    `fill_mb ${fillMb}`,
    `font_dir ${fontDir}`,
    `font_alias ${fontAlias}`,
    `shm_id ${shmId}`,
  ].join('\n');
  const pkg = await uploadPackage(
    server,
    admin,
    project.id,
    { hostile: readFileSync(game.binary), 'plugin.so': readFileSync(game.plugin), 'attack.txt': `${attack}\n` },
    { tags: ['os:linux', 'arch:x86'], entrypoint: ['hostile'] },
  );
  const machine = await server.trpc(admin.token).admin.cloudMachines.create.mutate({ title: 'Hostile rack' });
  agent = await startCloudAgent({
    server: server.url,
    token: machine.token,
    capacity: 1,
    // Root bounded to the capabilities the hosts guide lists: the corpus runs as an operator following it would.
    prefix: ['setpriv', `--bounding-set=-all,${Object.keys(agentCapabilities).map((name) => `+${name}`).join(',')}`, '--inh-caps=-all', '--'],
    args: ['--sandbox-uid-base', String(uidBase), '--session-disk-mb', String(quotaMb), '--shm-mb', String(shmMb), '--max-file-mb', '1024'],
  });
  await agent.waitForLog(/connected to the server/);
  freeBefore = freeBytes(agent.workDir);

  const response = await server.fetch(`/api/projects/${project.id}/packages/${pkg.id}/cloud-play`, { method: 'POST', token: admin.token });
  expect(response.status).toBe(200);
  session = (await response.json()) as CreatedCloudSession;
  const reportPath = join(agent.workDir, 'sessions', session.session, 'home', 'report.txt');
  const read = () => (existsSync(reportPath) ? readFileSync(reportPath, 'utf8') : '');
  await waitUntil(() => read().includes('done yes'), 'the hostile game’s report', 120_000);
  freeAfter = freeBytes(agent.workDir);
  report = new Map(
    read()
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)] as [string, string]),
  );
  if (process.env.HOSTILE_DEBUG) console.log(read());
  procText = readFileSync(join(agent.workDir, 'sessions', session.session, 'home', 'proc.txt'), 'utf8');
}, 240_000);

afterAll(async () => {
  await agent?.stop('SIGTERM');
  await server?.stop();
  listener?.close();
  sleeper?.kill('SIGKILL');
  shmTarget?.kill('SIGKILL');
  for (const path of [marker, fifo, scratch]) rmSync(path, { recursive: true, force: true });
});

const outcome = (probe: string) => {
  const value = report.get(probe);
  if (value === undefined) throw new Error(`the game reported no ${probe}; its report:\n${[...report].map((entry) => entry.join(' ')).join('\n')}`);
  return value;
};

describe('a hostile game in the real sandbox of the real agent', () => {
  test('the sound server loads no module: no code of the package outside, no listener, no outbound connection, no file', async () => {
    for (const probe of ['pulse_load_null_sink', 'pulse_load_ladspa', 'pulse_load_tcp', 'pulse_load_tunnel', 'pulse_load_pipe']) {
      expect({ probe, exit: outcome(probe).split(' ')[0] }).not.toEqual({ probe, exit: '0' });
    }
    // The game still has its sound: the server answers it.
    expect(outcome('pulse_info').split(' ')[0]).toBe('0');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(fifo)).toBe(false);
    expect(sleeper.exitCode === null && sleeper.signalCode === null).toBe(true);
    {
      const refused = await new Promise<boolean>((done) => {
        const socket = createConnection(pulsePort, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          done(false);
        });
        socket.once('error', () => done(true));
      });
      expect(refused).toBe(true);
    }
  });

  test('nothing the game does reaches the host’s network: directly, through the X server or the sound server', () => {
    expect(outcome('net_connect')).not.toBe('connected');
    // Its own listener lives in its own namespace: no listening socket of the session's users on the host.
    expect(outcome('net_listen')).toBe('listening');
    expect(hostListeners(uidBase, 128)).toEqual([]);
    expect(outcome('x11_font_server')).toBe('asked');
    expect(connections).toEqual([]);
  });

  test('the X server reads no host folder and writes into no shared memory of the host’s', async () => {
    expect(outcome('x11_font_dir')).toBe('unread');
    expect(outcome('x11_shm')).toBe('asked');
    expect(await shmVerdict()).toBe('intact');
  });

  test('the X server’s memory is bounded: pixmaps past its limit are refused, and it serves on', () => {
    // 256 MiB a pixmap against the 2 GiB of --service-memory-mb: refused before the 16th.
    const [made, verdict] = outcome('x11_pixmaps').split(' ');
    expect(verdict).toBe('refused');
    expect(Number(made)).toBeLessThan(16);
    expect(outcome('x11_alive')).toBe('yes');
  });

  test('no host path anywhere in /proc; a machine id of its own', () => {
    expect(outcome('proc')).toBe('copied');
    expect(outcome('host_home_learned')).toBe('no');
    expect(procText.length).toBeGreaterThan(10_000);
    for (const hostPath of [agent.workDir, scratch, repoRoot, `sessions/${session.session}`, 'cloudhost-agent-']) {
      expect({ hostPath, seen: procText.includes(hostPath) }).toEqual({ hostPath, seen: false });
    }
    const hostId = existsSync('/etc/machine-id') ? readFileSync('/etc/machine-id', 'utf8').trim() : '';
    expect(outcome('machine_id')).toMatch(/^[0-9a-f]{32}$/);
    expect(outcome('machine_id')).not.toBe(hostId);
  });

  test('a seccomp filter refuses what container runtimes refuse', () => {
    expect(outcome('seccomp_mode')).toBe('2');
    const refused = [
      'mount',
      'unshare_user',
      'unshare_mount',
      'setns',
      'keyctl',
      'add_key',
      'bpf',
      'perf_event_open',
      'userfaultfd',
      'io_uring_setup',
      'kexec_load',
      'init_module',
      'open_by_handle_at',
      'vsock',
      'ptrace_attach',
      'ptrace_traceme',
      'process_vm_readv',
    ];
    for (const probe of refused) expect({ probe, outcome: outcome(probe) }).toEqual({ probe, outcome: 'refused EPERM' });
    expect(outcome('clone3')).toBe('refused ENOSYS');
  });

  test('its writable area is bounded: ENOSPC past the quota, the host’s disk untouched, one log line', async () => {
    for (const probe of ['fill_home', 'fill_tmp']) {
      const [written, error] = outcome(probe).split(' ');
      expect({ probe, error }).toEqual({ probe, error: 'ENOSPC' });
      expect(Number(written)).toBeLessThanOrEqual(quotaMb);
    }
    const [shmWritten, shmError] = outcome('fill_shm').split(' ');
    expect(shmError).toBe('ENOSPC');
    expect(Number(shmWritten)).toBeLessThanOrEqual(shmMb);
    // The game tried to write 3 × 200 MiB; what other tests write meanwhile is far less than that.
    expect(freeBefore - freeAfter).toBeLessThan(150 * 1024 * 1024);
    const full = await agent.waitForLog(new RegExp(`session ${session.session}: its disk area is full`), 30_000);
    expect(agent.logs.filter((line) => line === full)).toHaveLength(1);
  });

  test('it signals and traces nothing outside its sandbox', () => {
    expect(report.has('kill_all')).toBe(true);
    expect(sleeper.exitCode === null && sleeper.signalCode === null).toBe(true);
    expect(execFileSync('ps', ['-o', 'pid=', '-p', String(sleeper.pid)], { encoding: 'utf8' }).trim()).toBe(String(sleeper.pid));
  });

  test('stopping it ends every process of its users and unmounts its folder (the agent holding only the listed capabilities)', async () => {
    const stop = await server.fetch('/api/cloud-play/session/stop', { method: 'POST', json: { token: session.token } });
    expect(stop.status).toBe(200);
    await agent.waitForLog(new RegExp(`session ${session.session}: ended`), 30_000);
    const ofSession = () => processesOfUids(uidBase, 128, [sleeper.pid!]);
    await waitUntil(() => ofSession().length === 0, 'the session’s processes to end', 20_000, false);
    expect(mountsBelow(agent.workDir)).toEqual([]);
    expect(existsSync(join(agent.workDir, 'sessions', session.session))).toBe(false);
  });
});


/** TCP sockets listening in the host's network namespace owned by uids from..from+count-1 ("port uid"). */
function hostListeners(from: number, count: number): string[] {
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 8 || fields[3] !== '0A') continue;
      const uid = Number(fields[7]);
      if (uid >= from && uid < from + count) found.push(`${parseInt(fields[1]!.split(':')[1]!, 16)} ${uid}`);
    }
  }
  return found;
}
