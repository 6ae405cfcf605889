import { describe, expect, test } from 'bun:test';
import { pulseArgs } from '../../cloudhost/src/audio.ts';
import { readSandboxInfo, xvfbArgs } from '../../cloudhost/src/display.ts';
import { bwrapArgs, etcEntries, jailCommand, type JailSpec } from '../../cloudhost/src/jail.ts';
import { audioArgs, videoArgs } from '../../cloudhost/src/media.ts';
import { seccompFilter } from '../../cloudhost/src/seccomp-filter.ts';
import { checkEntrypoint, gameJail, identityFiles, newMachineId, type GameSandbox } from '../../cloudhost/src/sandbox.ts';
import { encoderJail, pulseJail, xvfbJail, type ServiceJailBase } from '../../cloudhost/src/services.ts';
import { sessionLayout } from '../../cloudhost/src/session-disk.ts';

const layout = sessionLayout('/w/sessions/s1');
const programs = { bwrap: '/usr/bin/bwrap', prlimit: '/usr/bin/prlimit', setpriv: '/usr/bin/setpriv', nsenter: '/usr/bin/nsenter' };
const hostRoots = { '/bin': 'usr/bin', '/lib': 'usr/lib', '/lib64': 'usr/lib64', '/sbin': 'usr/sbin', '/lib32': 'dir' };
const spec: GameSandbox = {
  layout,
  entrypoint: ['bin', 'game.x86_64'],
  display: 101,
  withSound: true,
  uid: 61001,
  limits: { memoryBytes: 8 * 1024 ** 3, processes: 1024, fileBytes: 4 * 1024 ** 3, openFiles: 4096 },
  shmBytes: 256 * 1024 ** 2,
  programs,
  hostRoots,
};

/** The values after each occurrence of `flag` (pairs like --ro-bind SRC DEST give SRC, DEST). */
function pairs(args: string[], flag: string): [string, string][] {
  const found: [string, string][] = [];
  args.forEach((arg, i) => {
    if (arg === flag) found.push([args[i + 1]!, args[i + 2]!]);
  });
  return found;
}

/** What bubblewrap reads from the --args pipe. */
const pipedArgs = (jail: JailSpec) => new TextDecoder().decode(jailCommand(jail).fds[0]).split('\0').slice(0, -1);

describe('the game’s jail', () => {
  const jail = gameJail(spec);
  const command = jailCommand(jail);
  const args = command.args;
  const bwrapAt = args.indexOf('/usr/bin/bwrap');
  const options = pipedArgs(jail);

  test('prlimit, then setpriv to the session uid, then bwrap reading its options from fd 3, then the entrypoint', () => {
    expect(command.command).toBe('/usr/bin/prlimit');
    expect(args.slice(0, args.indexOf('--'))).toEqual([
      `--as=${8 * 1024 ** 3}:${8 * 1024 ** 3}`,
      '--nproc=1024:1024',
      `--fsize=${4 * 1024 ** 3}:${4 * 1024 ** 3}`,
      '--nofile=4096:4096',
      '--core=0:0',
    ]);
    expect(args.slice(args.indexOf('--') + 1, bwrapAt)).toEqual(['/usr/bin/setpriv', '--reuid=61001', '--regid=61001', '--clear-groups', '--no-new-privs', '--pdeathsig=KILL', '--']);
    expect(args.slice(bwrapAt)).toEqual(['/usr/bin/bwrap', '--args', '3', '--', '/home/player/game/bin/game.x86_64']);
    expect(pairs(options, '--chdir')[0]![0]).toBe('/home/player/game/bin');
    expect(jail.entrypointInside).toBe('/home/player/game/bin/game.x86_64');
  });

  test('no session path and nothing secret on any command line: the options and the filter come through pipes', () => {
    for (const arg of args) expect(arg).not.toContain('/w/sessions');
    expect(options.join(' ')).toContain('/w/sessions/s1/home');
    expect(options[options.indexOf('--seccomp') + 1]).toBe('4');
    expect(Buffer.from(command.fds[1]).toString('base64')).toBe(seccompFilter.base64);
    expect(command.fds[1].length).toBe(seccompFilter.instructions * 8);
  });

  test('namespaces: no network, own PIDs, no nested user namespaces, dies with the agent, own session, no capabilities', () => {
    for (const flag of ['--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session']) {
      expect(options).toContain(flag);
    }
    expect(options[options.indexOf('--cap-drop') + 1]).toBe('ALL');
    expect(options.slice(-4, -2)).toEqual(['--remount-ro', '/']);
    expect(options).not.toContain('--share-net');
  });

  test('only the session home and the session tmp are writable; the system is read-only; /dev/shm bounded', () => {
    expect(pairs(options, '--bind')).toEqual([
      ['/w/sessions/s1/tmp', '/tmp'],
      ['/w/sessions/s1/home', '/home/player'],
    ]);
    const readOnly = pairs(options, '--ro-bind');
    expect(readOnly).toContainEqual(['/usr', '/usr']);
    expect(readOnly).toContainEqual(['/w/sessions/s1/etc/passwd', '/etc/passwd']);
    expect(readOnly).toContainEqual(['/w/sessions/s1/etc/group', '/etc/group']);
    expect(readOnly).toContainEqual(['/w/sessions/s1/etc/machine-id', '/etc/machine-id']);
    expect(readOnly).toContainEqual(['/w/sessions/s1/x11/X101', '/tmp/.X11-unix/X101']);
    expect(readOnly).toContainEqual(['/w/sessions/s1/pulse/native', '/run/cartridge/pulse']);
    expect(readOnly).toContainEqual(['/lib32', '/lib32']);
    expect(pairs(options, '--symlink')).toContainEqual(['usr/bin', '/bin']);
    expect(pairs(options, '--ro-bind-try').map(([source]) => source)).toEqual(etcEntries.map((entry) => `/etc/${entry}`));
    expect(etcEntries as readonly string[]).not.toContain('machine-id');
    // Nothing of the host's /etc secrets, /home, /root, /var or /run.
    const sources = [...readOnly, ...pairs(options, '--ro-bind-try'), ...pairs(options, '--bind')].map(([source]) => source);
    for (const source of sources) expect(source).not.toMatch(/^\/(etc\/(shadow|sudoers|ssh|machine-id)|root|home|var|run)\b/);
    expect(options).toContain('--proc');
    expect(options).toContain('--dev');
    expect(pairs(options, '--size')).toContainEqual([String(256 * 1024 ** 2), '--tmpfs']);
  });

  test('the game’s environment: DISPLAY and PULSE_SERVER in, nothing of the agent’s', () => {
    expect(command.env).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: '/home/player',
      USER: 'player',
      LOGNAME: 'player',
      LANG: 'C.UTF-8',
      TMPDIR: '/tmp',
      XDG_RUNTIME_DIR: '/tmp',
      XDG_SESSION_TYPE: 'x11',
      DISPLAY: ':101',
      PULSE_SERVER: 'unix:/run/cartridge/pulse',
    });
  });

  test('without a uid no setpriv; without a memory limit no --as; an entrypoint at the top runs in game/', () => {
    const plainJail = gameJail({ ...spec, uid: undefined, entrypoint: ['run.sh'], limits: { ...spec.limits, memoryBytes: 0 }, withSound: false });
    const plain = jailCommand(plainJail);
    expect(plain.args).not.toContain('/usr/bin/setpriv');
    expect(plain.args.some((arg) => arg.startsWith('--as='))).toBe(false);
    expect(pairs(pipedArgs(plainJail), '--chdir')[0]![0]).toBe('/home/player/game');
    expect(plain.env.PULSE_SERVER).toBeUndefined();
  });

  test('entrypoints that are not plain names are refused; no option may hold a NUL', () => {
    expect(checkEntrypoint(['a', 'b'])).toEqual(['a', 'b']);
    expect(() => checkEntrypoint([])).toThrow('no entrypoint');
    for (const bad of [['..', 'etc', 'passwd'], ['a/b'], ['.'], [''], ['a\0b']]) expect(() => checkEntrypoint(bad)).toThrow('bad entrypoint');
    expect(() => bwrapArgs({ ...jail, mounts: [{ kind: 'bind', from: '/w/a\0b', to: '/x' }] }, 4)).toThrow('NUL');
  });

  test('the session’s passwd names the player with the game uid; a machine id of its own each time', () => {
    const files = identityFiles(61001, 61001);
    expect(files.passwd).toContain('player:x:61001:61001:Player:/home/player:/bin/sh');
    expect(files.group).toContain('player:x:61001:');
    const [a, b] = [newMachineId(), newMachineId()];
    expect(a).toMatch(/^[0-9a-f]{32}\n$/);
    expect(a).not.toBe(b);
  });
});

describe('the jails of the session’s servers and encoders', () => {
  const base: ServiceJailBase = { layout, uid: 61065, limits: { memoryBytes: 2 * 1024 ** 3, processes: 512, fileBytes: 1024 ** 3, openFiles: 4096 }, hostRoots, programs };

  test('Xvfb and PulseAudio: the services uid, no network, only their own folder of the session writable', () => {
    const xvfb = xvfbJail(base, ['Xvfb', ...xvfbArgs(101, 1280, 720)]);
    const pulse = pulseJail(base, ['pulseaudio', ...pulseArgs('/run/cartridge-sound/native')]);
    for (const jail of [xvfb, pulse]) {
      expect(jail.network).toBe('none');
      expect(jail.uid).toBe(61065);
      const options = pipedArgs(jail);
      expect(options).toContain('--unshare-net');
      expect(options).toContain('--unshare-ipc');
      expect(jailCommand(jail).args).toContain('--reuid=61065');
    }
    expect(pairs(pipedArgs(xvfb), '--bind')).toEqual([['/w/sessions/s1/x11', '/tmp/.X11-unix']]);
    expect(pairs(pipedArgs(pulse), '--bind')).toEqual([['/w/sessions/s1/pulse', '/run/cartridge-sound']]);
  });

  test('the encoders: the host’s network for their RTP, one socket of the session each, read-only', () => {
    const video = encoderJail(base, { display: 101 }, ['ffmpeg']);
    const audio = encoderJail(base, { sound: true }, ['ffmpeg']);
    expect(pipedArgs(video)).not.toContain('--unshare-net');
    expect(pairs(pipedArgs(video), '--bind')).toEqual([]);
    expect(pairs(pipedArgs(video), '--ro-bind')).toContainEqual(['/w/sessions/s1/x11/X101', '/tmp/.X11-unix/X101']);
    expect(pairs(pipedArgs(audio), '--ro-bind')).toContainEqual(['/w/sessions/s1/pulse/native', '/run/cartridge/pulse']);
    expect(pairs(pipedArgs(audio), '--ro-bind').some(([source]) => source.includes('x11'))).toBe(false);
  });

  test('the video encoder may join its X server’s IPC namespace (MIT-SHM with it alone): nsenter first, as root', () => {
    const video = encoderJail(base, { display: 101, ipcOf: 4242 }, ['ffmpeg']);
    const command = jailCommand(video);
    expect(command.command).toBe('/usr/bin/nsenter');
    expect(command.args.slice(0, 3)).toEqual(['--ipc=/proc/4242/ns/ipc', '--', '/usr/bin/prlimit']);
    expect(pipedArgs(video)).not.toContain('--unshare-ipc');
    // Without a pid to join: a namespace of its own, as every other jail.
    const alone = encoderJail(base, { display: 101 }, ['ffmpeg']);
    expect(jailCommand(alone).command).toBe('/usr/bin/prlimit');
    expect(pipedArgs(alone)).toContain('--unshare-ipc');
    expect(pipedArgs(encoderJail(base, { sound: true }, ['ffmpeg']))).toContain('--unshare-ipc');
  });

  test('Xvfb’s jail reports its sandbox (pid and namespaces) on fd 5', () => {
    const xvfb = { ...xvfbJail(base, ['Xvfb']), reportSandbox: true };
    expect(pairs(pipedArgs(xvfb), '--info-fd')[0]![0]).toBe('5');
    expect(jailCommand(xvfb).fds).toHaveLength(3);
    expect(readSandboxInfo('{\n "child-pid": 77, "ipc-namespace": 4026532179, "mnt-namespace": 1\n}')).toEqual({ pid: 77, ipcNamespace: 4026532179 });
    expect(readSandboxInfo('{"child-pid": 77')).toBeUndefined();
    expect(readSandboxInfo('{"child-pid": "77", "ipc-namespace": 1}')).toBeUndefined();
  });

  test('PulseAudio loads its two modules, then no more', () => {
    const pulse = pulseArgs('/run/cartridge-sound/native');
    expect(pulse).toContain('-n');
    expect(pulse).toContain('--load=module-native-protocol-unix socket=/run/cartridge-sound/native auth-anonymous=1');
    expect(pulse.some((arg) => arg.startsWith('--load=module-null-sink sink_name=game'))).toBe(true);
    expect(pulse.at(-1)).toBe('--disallow-module-loading=true');
    expect(pulse.filter((arg) => arg.startsWith('--load=')).length).toBe(2);
  });
});

describe('capture commands', () => {
  test('H.264: x11grab of the display, baseline ultrafast zerolatency, GOP of one second, RTP of 1200-byte packets', () => {
    const args = videoArgs({ display: 101, width: 1280, height: 720, fps: 60, codec: 'h264', kbps: 8000, gopSeconds: 1 }, 40000);
    const text = args.join(' ');
    expect(text).toContain('-f x11grab -draw_mouse 1 -framerate 60 -video_size 1280x720 -i :101.0');
    expect(text).toContain('-c:v libx264 -preset ultrafast -tune zerolatency -profile:v baseline -pix_fmt yuv420p -bf 0 -g 60 -keyint_min 60');
    expect(text).toContain('-x264-params repeat-headers=1');
    expect(text).toEndWith('-f rtp -payload_type 96 -pkt_size 1200 rtp://127.0.0.1:40000');
  });

  test('VP8 realtime, and the GOP follows the frame rate', () => {
    const text = videoArgs({ display: 5, width: 640, height: 480, fps: 30, codec: 'vp8', kbps: 2000, gopSeconds: 2 }, 1).join(' ');
    expect(text).toContain('-c:v libvpx -deadline realtime -cpu-used 8 -lag-in-frames 0 -error-resilient 1');
    expect(text).toContain('-g 60');
  });

  test('Opus from the session sink’s monitor; Xvfb and PulseAudio per session', () => {
    const audio = audioArgs('/w/s1/pulse/native', 128, 40002).join(' ');
    expect(audio).toContain('-f pulse -server unix:/w/s1/pulse/native');
    expect(audio).toContain('-i game.monitor');
    expect(audio).toContain('-c:a libopus');
    expect(audio).toEndWith('rtp://127.0.0.1:40002');
    expect(xvfbArgs(101, 1280, 720)).toEqual([':101', '-screen', '0', '1280x720x24', '-nolisten', 'tcp', '-noreset', '-dpi', '96']);
  });
});
