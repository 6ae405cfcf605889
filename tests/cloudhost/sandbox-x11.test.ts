import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import * as x11 from 'x11';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeInput, encodeInput } from '../../src/shared/cloud-play/input.ts';
import { displayInUse, startXvfb } from '../../cloudhost/src/display.ts';
import { XTestInjector } from '../../cloudhost/src/injector.ts';
import { jailCommand, readHostRoots, startJail } from '../../cloudhost/src/jail.ts';
import { waitFor, type ManagedProcess } from '../../cloudhost/src/processes.ts';
import { gameJail, identityFiles, newMachineId, type GameSandbox } from '../../cloudhost/src/sandbox.ts';
import { sessionLayout, type SessionLayout } from '../../cloudhost/src/session-disk.ts';
import { buildX11Probe, requireHostPrograms } from '../support/cloudhost-tools.ts';

/**
 * The agent's sandbox and input path on this machine, with real programs: Xvfb, bubblewrap, a small
 * X11 program built here, and XTest through the `x11` package.
 */
const isRoot = process.getuid?.() === 0;
const uid = isRoot ? 61_990 : undefined;
const serviceUid = isRoot ? 61_990 + 64 : undefined;
const programs = { bwrap: 'bwrap', prlimit: 'prlimit', setpriv: 'setpriv', nsenter: 'nsenter' };

let dir: string;
/** The X server's session: its socket in displayLayout.x11. */
let displayLayout: SessionLayout;
let display: number;
let xvfb: ManagedProcess;
let injector: XTestInjector;
let listener: Server;
let listenerPort = 0;
let connections = 0;

type Session = SessionLayout;

/** A session folder sharing the display's x11/ (a link: the game binds its socket). */
function makeSession(name: string, files: Record<string, { content: string | Uint8Array; mode?: number }>): Session {
  const root = join(dir, name);
  const session = { ...sessionLayout(root), x11: displayLayout.x11, x11Socket: displayLayout.x11Socket };
  mkdirSync(join(session.home, 'game'), { recursive: true });
  mkdirSync(session.tmp);
  mkdirSync(session.etc);
  chmodSync(root, 0o711);
  writeFileSync(join(session.etc, 'machine-id'), newMachineId());
  for (const [path, file] of Object.entries(files)) {
    writeFileSync(join(session.home, 'game', path), file.content);
    chmodSync(join(session.home, 'game', path), file.mode ?? 0o644);
  }
  const identity = identityFiles(uid ?? process.getuid!(), uid ?? process.getgid!());
  writeFileSync(join(session.etc, 'passwd'), identity.passwd);
  writeFileSync(join(session.etc, 'group'), identity.group);
  chmodSync(session.etc, 0o755);
  if (uid !== undefined) {
    for (const path of [session.home, join(session.home, 'game'), session.tmp, ...Object.keys(files).map((file) => join(session.home, 'game', file))]) chownSync(path, uid, uid);
  }
  return session;
}

function gameSpec(session: Session, entrypoint: string[], memoryBytes = 2 * 1024 ** 3): GameSandbox {
  return {
    layout: session,
    entrypoint,
    display,
    withSound: false,
    uid,
    limits: { memoryBytes, processes: 256, fileBytes: 64 * 1024 ** 2, openFiles: 1024 },
    shmBytes: 16 * 1024 ** 2,
    programs,
    hostRoots: readHostRoots(),
  };
}

function startGame(session: Session, entrypoint: string[]): ManagedProcess {
  return startJail('game', gameJail(gameSpec(session, entrypoint)));
}

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');

/** Host processes whose command line holds `text` (the sandbox's PID namespace hides nothing from the host). */
function hostProcesses(text: string): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    });
}

beforeAll(async () => {
  requireHostPrograms();
  dir = mkdtempSync(join(tmpdir(), 'cloudhost-x11-'));
  chmodSync(dir, 0o711);
  display = 180 + Math.floor(Math.random() * 50);
  while (displayInUse(display)) display += 1;
  displayLayout = sessionLayout(join(dir, 'display'));
  mkdirSync(displayLayout.x11, { recursive: true, mode: 0o711 });
  chmodSync(displayLayout.dir, 0o711);
  if (serviceUid !== undefined) chownSync(displayLayout.x11, serviceUid, serviceUid);
  const limits = { memoryBytes: 2 * 1024 ** 3, processes: 256, fileBytes: 64 * 1024 ** 2, openFiles: 1024 };
  xvfb = (await startXvfb({ layout: displayLayout, uid: serviceUid, limits, hostRoots: readHostRoots(), programs }, 'Xvfb', display, 640, 480)).process;
  injector = await XTestInjector.connect(displayLayout.x11Socket(display), display);
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerPort = (listener.address() as { port: number }).port;
});

afterAll(async () => {
  injector?.close();
  await xvfb?.stop();
  listener?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the sandboxed game and the XTest input path', () => {
  test('keys and the mouse reach the focused game window; no network; no writes outside its home', async () => {
    const probe = join(dir, 'x11-probe');
    buildX11Probe(probe);
    const outside = ['/usr/cartridge-escape', '/etc/cartridge-escape', '/cartridge-escape', join(dir, 'escape.txt'), '/home/player/game/../../../escape.txt'];
    const session = makeSession('s1', {
      'x11-probe': { content: readFileSync(probe), mode: 0o755 },
      'port.txt': { content: `${listenerPort}\n` },
      'outside.txt': { content: `${outside.join('\n')}\n` },
    });
    const game = startGame(session, ['x11-probe']);
    const checksPath = join(session.home, 'checks.txt');
    const eventsPath = join(session.home, 'events.txt');
    await waitFor(() => read(checksPath).includes('display ready') && read(eventsPath).includes('mapped'), {
      timeoutMs: 10_000,
      what: 'the probe',
      failed: () => (game.running ? undefined : `exited: ${game.stderrTail()} ${read(checksPath)}`),
    });
    // The injector saw the window mapped and gave it the focus (Xvfb has no window manager to do it).
    await waitFor(() => injector.focused !== undefined && read(eventsPath).includes('focus_in'), { timeoutMs: 5000, what: 'focus' });

    const checks = read(checksPath);
    expect(checks).toMatch(/^net failed /m);
    expect(connections).toBe(0);
    for (const path of outside) expect(checks).toContain(`write ${path} refused`);
    expect(checks).toContain('home written');
    const [, insideUid, insidePid] = /^uid (\d+) pid (\d+)$/m.exec(checks)!;
    if (uid !== undefined) expect(Number(insideUid)).toBe(uid);
    expect(Number(insidePid)).toBeLessThan(10);
    expect(existsSync(join(dir, 'escape.txt'))).toBe(false);

    // What the page sends, decoded as the agent decodes it, injected as the agent injects it.
    const send = (event: Parameters<typeof encodeInput>[0]) => {
      const decoded = decodeInput(encodeInput(event));
      expect(decoded).toBeDefined();
      return injector.inject(decoded!);
    };
    const started = performance.now();
    expect(send({ type: 'mouseMove', x: 100, y: 50 })).toBe(true);
    expect(send({ type: 'mouseDown', button: 1 })).toBe(true);
    expect(send({ type: 'mouseUp', button: 1 })).toBe(true);
    expect(send({ type: 'keyDown', key: 30 })).toBe(true); // KEY_A
    expect(send({ type: 'keyUp', key: 30 })).toBe(true);
    expect(send({ type: 'mouseDown', button: 5 })).toBe(true); // wheel down: a press and a release
    expect(send({ type: 'mouseUp', button: 5 })).toBe(true);
    // Malformed and out-of-range input is ignored.
    expect(decodeInput(new Uint8Array([9, 9]))).toBeUndefined();
    expect(decodeInput(new Uint8Array([0, 1]))).toBeUndefined();
    expect(injector.inject({ type: 'keyDown', key: 400 })).toBe(false);
    expect(injector.inject({ type: 'mouseDown', button: 42 })).toBe(false);
    await waitFor(() => read(eventsPath).includes('button_up 5'), { timeoutMs: 5000, what: 'the events' });
    const latencyMs = performance.now() - started;
    const events = read(eventsPath).split('\n').filter((line) => line && line !== 'mapped' && line !== 'focus_in');
    expect(events).toEqual(['motion 100 50', 'button_down 1 100 50', 'button_up 1', 'key_down 38', 'key_up 38', 'button_down 5 100 50', 'button_up 5']);
    console.log(`seven events injected and seen by the game in ${latencyMs.toFixed(1)} ms`);

    // Escape (Linux code 1, X keycode 9) ends the game: the agent would report game_exited.
    send({ type: 'keyDown', key: 1 });
    const exit = await game.exited;
    expect(exit.code).toBe(0);
  });

  test('stopping a game ends its whole sandbox, even a child that ignores SIGTERM', async () => {
    // A sleep no other process runs: its duration is the marker.
    const seconds = String(5_000_000 + Math.floor(Math.random() * 4_000_000));
    const marker = `sleep\0${seconds}`;
    const session = makeSession('s2', {
      'run.sh': { content: `#!/bin/sh\ntrap '' TERM\n(trap '' TERM; sleep ${seconds}) &\necho started > "$HOME/started"\nwhile true; do sleep 1; done\n`, mode: 0o755 },
    });
    const game = startGame(session, ['run.sh']);
    await waitFor(() => existsSync(join(session.home, 'started')) && hostProcesses(marker).length > 0, {
      timeoutMs: 10_000,
      what: 'the game',
      failed: () => (game.running ? undefined : `exited: ${game.stderrTail()}`),
    });
    await game.stop(500);
    expect(game.running).toBe(false);
    await waitFor(() => hostProcesses(marker).length === 0, { timeoutMs: 5000, what: 'the sandbox’s processes to go' });
  });

  test('the display’s root cursor is the arrow, not the X server’s cross (the stream draws what XFixes reports)', async () => {
    const image = await new Promise<{ width: number; height: number; xhot: number; yhot: number }>((resolve, reject) => {
      const client = x11.createClient({ display: `:${display}`, stream: createConnection(displayLayout.x11Socket(display)) }, (error) => {
        if (error) return reject(error);
        client.require('fixes', (failed, fixes) => {
          if (failed) return reject(failed);
          fixes.QueryVersion(5, 0, () =>
            fixes.GetCursorImage((imageError, value) => {
              client.terminate();
              if (imageError) reject(imageError);
              else resolve(value);
            }),
          );
        });
      });
    });
    // The cross (XC_X_cursor) is 16x16 with its hot spot in the middle (7, 7); the arrow's is at its tip.
    expect(image.xhot).toBeLessThanOrEqual(2);
    expect(image.yhot).toBeLessThanOrEqual(2);
  });

  test('the sandbox has no network interface but its own loopback', () => {
    const session = makeSession('s3', {});
    // The same jail with another program: list the interfaces the kernel shows.
    const jail = jailCommand({ ...gameJail(gameSpec(session, ['x'], 0)), command: ['/bin/cat', '/proc/net/dev'] });
    // fds 3 and 4: bubblewrap's options and the seccomp filter, from files here (the agent uses pipes).
    const output = execFileSync('sh', ['-c', 'o=$1; f=$2; shift 2; exec "$@" 3<"$o" 4<"$f"', 'sh', writeTemp('options', jail.fds[0]), writeTemp('filter', jail.fds[1]), jail.command, ...jail.args], {
      env: jail.env,
      encoding: 'utf8',
    });
    const interfaces = output.split('\n').slice(2).map((line) => line.split(':')[0]!.trim()).filter(Boolean);
    expect(interfaces).toEqual(['lo']);
  });
});

function writeTemp(name: string, content: Uint8Array): string {
  const path = join(dir, `${name}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, content);
  return path;
}
