import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const programs: Record<string, string> = {
  Xvfb: 'xvfb',
  ffmpeg: 'ffmpeg',
  bwrap: 'bubblewrap',
  pulseaudio: 'pulseaudio',
  pactl: 'pulseaudio-utils',
  gcc: 'gcc',
  prlimit: 'util-linux',
  setpriv: 'util-linux',
  nsenter: 'util-linux',
  scmp_sys_resolver: 'seccomp',
};
/** Headers the tests compile against, and their packages. */
const headers: Record<string, string> = { '/usr/include/X11/Xlib.h': 'libx11-dev', '/usr/include/X11/extensions/XShm.h': 'libxext-dev', '/usr/include/seccomp.h': 'libseccomp-dev' };

/** Throws naming the Debian packages to install when a program the host tests run is missing. */
export function requireHostPrograms(): void {
  const missing = Object.entries(programs).filter(([program]) => {
    try {
      execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  missing.push(...Object.entries(headers).filter(([path]) => !existsSync(path)));
  if (missing.length > 0) {
    throw new Error(`cloud-play host tests need ${missing.map(([what]) => what).join(', ')}: apt-get install ${[...new Set(missing.map(([, pkg]) => pkg))].join(' ')}`);
  }
}

/** Compiles tests/cloudhost/fixtures/x11-probe.c into `output`. */
export function buildX11Probe(output: string): void {
  execFileSync('gcc', ['-O1', '-o', output, new URL('../cloudhost/fixtures/x11-probe.c', import.meta.url).pathname, '-lX11'], { stdio: 'pipe' });
}

/**
 * Compiles tests/cloudhost/fixtures/colour-game.c into `output`: the colour game of the cloud-play e2e
 * test; `animateFps` adds its frame loop (moving stripes and a clock strip, for the benchmark), `salt`
 * makes a build of other bytes.
 */
export function buildColourGame(output: string, options: { animateFps?: number; salt?: string } = {}): void {
  const defines = [`-DANIMATE_FPS=${Math.max(0, Math.round(options.animateFps ?? 0))}`];
  if (options.salt !== undefined) {
    if (!/^[\w.-]*$/.test(options.salt)) throw new Error('the salt is letters, digits, _ . - only');
    defines.push(`-DSALT="${options.salt}"`);
  }
  const source = new URL('../cloudhost/fixtures/colour-game.c', import.meta.url).pathname;
  execFileSync('gcc', ['-O1', ...defines, '-o', output, source, '-lX11', '-lm'], { stdio: 'pipe' });
}

/**
 * Compiles the hostile game of tests/cloudhost/hostile-game.test.ts into `dir`: its binary and its
 * "LADSPA plugin", which leaves `marker` and kills the pid in `pidFile` if anything ever loads it, and
 * the host's shared memory segment it aims at (fixtures/shm-target.c).
 */
export function buildHostileGame(dir: string, options: { marker: string; pidFile: string }): { binary: string; plugin: string; shmTarget: string } {
  const fixtures = new URL('../cloudhost/fixtures/', import.meta.url).pathname;
  const binary = `${dir}/hostile-game`;
  const plugin = `${dir}/hostile-plugin.so`;
  execFileSync('gcc', ['-O1', '-o', binary, `${fixtures}hostile-game.c`, '-lX11', '-lXext'], { stdio: 'pipe' });
  const quoted = (path: string) => {
    if (!/^[\w./-]+$/.test(path)) throw new Error(`not a plain path: ${path}`);
    return `"${path}"`;
  };
  execFileSync('gcc', ['-O1', '-shared', '-fPIC', `-DMARKER=${quoted(options.marker)}`, `-DPIDFILE=${quoted(options.pidFile)}`, '-o', plugin, `${fixtures}hostile-plugin.c`], { stdio: 'pipe' });
  const shmTarget = `${dir}/shm-target`;
  execFileSync('gcc', ['-O1', '-o', shmTarget, `${fixtures}shm-target.c`], { stdio: 'pipe' });
  return { binary, plugin, shmTarget };
}
