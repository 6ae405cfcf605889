import { describe, expect, test } from 'bun:test';
import { pulseArgs } from '../../cloudhost/src/audio.ts';
import { xvfbArgs } from '../../cloudhost/src/display.ts';
import { audioArgs, videoArgs } from '../../cloudhost/src/media.ts';
import { checkEntrypoint, etcEntries, identityFiles, sandboxCommand, type SandboxSpec } from '../../cloudhost/src/sandbox.ts';

const spec: SandboxSpec = {
  homeDir: '/w/sessions/s1/home',
  tmpDir: '/w/sessions/s1/tmp',
  etcDir: '/w/sessions/s1/etc',
  entrypoint: ['bin', 'game.x86_64'],
  display: 101,
  pulseSocket: '/w/sessions/s1/pulse/native',
  uid: 61001,
  limits: { memoryBytes: 8 * 1024 ** 3, processes: 1024, fileBytes: 4 * 1024 ** 3, openFiles: 4096 },
  programs: { bwrap: '/usr/bin/bwrap', prlimit: '/usr/bin/prlimit', setpriv: '/usr/bin/setpriv' },
  hostRoots: { '/bin': 'usr/bin', '/lib': 'usr/lib', '/lib64': 'usr/lib64', '/sbin': 'usr/sbin', '/lib32': 'dir' },
};

/** The value after each occurrence of `flag` (pairs like --ro-bind SRC DEST give SRC). */
function pairs(args: string[], flag: string): [string, string][] {
  const found: [string, string][] = [];
  args.forEach((arg, i) => {
    if (arg === flag) found.push([args[i + 1]!, args[i + 2]!]);
  });
  return found;
}

describe('sandbox command', () => {
  const command = sandboxCommand(spec);
  const args = command.args;
  const bwrapAt = args.indexOf('/usr/bin/bwrap');

  test('prlimit, then setpriv to the session uid, then bwrap, then the entrypoint', () => {
    expect(command.command).toBe('/usr/bin/prlimit');
    expect(args.slice(0, args.indexOf('--'))).toEqual([
      `--as=${8 * 1024 ** 3}:${8 * 1024 ** 3}`,
      '--nproc=1024:1024',
      `--fsize=${4 * 1024 ** 3}:${4 * 1024 ** 3}`,
      '--nofile=4096:4096',
      '--core=0:0',
    ]);
    expect(args.slice(args.indexOf('--') + 1, bwrapAt)).toEqual(['/usr/bin/setpriv', '--reuid=61001', '--regid=61001', '--clear-groups', '--no-new-privs', '--pdeathsig=KILL', '--']);
    expect(args.slice(-2)).toEqual(['--', '/home/player/game/bin/game.x86_64']);
    expect(pairs(args, '--chdir')[0]![0]).toBe('/home/player/game/bin');
    expect(command.entrypointInside).toBe('/home/player/game/bin/game.x86_64');
  });

  test('namespaces: no network, own PIDs, dies with the agent, own session, no capabilities', () => {
    const bwrap = args.slice(bwrapAt);
    for (const flag of ['--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-user', '--die-with-parent', '--new-session']) {
      expect(bwrap).toContain(flag);
    }
    expect(bwrap[bwrap.indexOf('--cap-drop') + 1]).toBe('ALL');
    expect(bwrap.slice(-6, -4)).toEqual(['--remount-ro', '/']);
    expect(bwrap).not.toContain('--share-net');
  });

  test('only the session home and the session tmp are writable; the system is read-only', () => {
    expect(pairs(args, '--bind')).toEqual([
      ['/w/sessions/s1/tmp', '/tmp'],
      ['/w/sessions/s1/home', '/home/player'],
    ]);
    const readOnly = pairs(args, '--ro-bind');
    expect(readOnly).toContainEqual(['/usr', '/usr']);
    expect(readOnly).toContainEqual(['/w/sessions/s1/etc/passwd', '/etc/passwd']);
    expect(readOnly).toContainEqual(['/w/sessions/s1/etc/group', '/etc/group']);
    expect(readOnly).toContainEqual(['/tmp/.X11-unix/X101', '/tmp/.X11-unix/X101']);
    expect(readOnly).toContainEqual(['/w/sessions/s1/pulse/native', '/run/cartridge/pulse']);
    expect(readOnly).toContainEqual(['/lib32', '/lib32']);
    expect(pairs(args, '--symlink')).toContainEqual(['usr/bin', '/bin']);
    expect(pairs(args, '--ro-bind-try').map(([source]) => source)).toEqual(etcEntries.map((entry) => `/etc/${entry}`));
    // Nothing of the host's /etc secrets, /home, /root, /var or /run.
    const sources = [...readOnly, ...pairs(args, '--ro-bind-try'), ...pairs(args, '--bind')].map(([source]) => source);
    for (const source of sources) expect(source).not.toMatch(/^\/(etc\/(shadow|sudoers|ssh)|root|home|var|run)\b/);
    expect(args).toContain('--proc');
    expect(args).toContain('--dev');
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
    const plain = sandboxCommand({ ...spec, uid: undefined, entrypoint: ['run.sh'], limits: { ...spec.limits, memoryBytes: 0 }, pulseSocket: undefined });
    expect(plain.args).not.toContain('/usr/bin/setpriv');
    expect(plain.args.some((arg) => arg.startsWith('--as='))).toBe(false);
    expect(pairs(plain.args, '--chdir')[0]![0]).toBe('/home/player/game');
    expect(plain.env.PULSE_SERVER).toBeUndefined();
  });

  test('entrypoints that are not plain names are refused', () => {
    expect(checkEntrypoint(['a', 'b'])).toEqual(['a', 'b']);
    expect(() => checkEntrypoint([])).toThrow('no entrypoint');
    for (const bad of [['..', 'etc', 'passwd'], ['a/b'], ['.'], [''], ['a\0b']]) expect(() => checkEntrypoint(bad)).toThrow('bad entrypoint');
  });

  test('the session’s passwd names the player with the game uid', () => {
    const files = identityFiles(61001, 61001);
    expect(files.passwd).toContain('player:x:61001:61001:Player:/home/player:/bin/sh');
    expect(files.group).toContain('player:x:61001:');
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
    const pulse = pulseArgs('/w/s1/pulse/native');
    expect(pulse).toContain('-n');
    expect(pulse).toContain('--load=module-native-protocol-unix socket=/w/s1/pulse/native auth-anonymous=1');
    expect(pulse.some((arg) => arg.startsWith('--load=module-null-sink sink_name=game'))).toBe(true);
  });
});
