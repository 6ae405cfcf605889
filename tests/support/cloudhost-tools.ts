import { execFileSync } from 'node:child_process';

/** The Debian packages the cloud-play host agent and its tests need (CI installs them). */
export const cloudhostPackages = ['xvfb', 'ffmpeg', 'bubblewrap', 'pulseaudio', 'gcc', 'libx11-dev', 'util-linux'] as const;

const programs: Record<string, string> = { Xvfb: 'xvfb', ffmpeg: 'ffmpeg', bwrap: 'bubblewrap', pulseaudio: 'pulseaudio', gcc: 'gcc', prlimit: 'util-linux', setpriv: 'util-linux' };

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
  if (missing.length > 0) {
    throw new Error(`cloud-play host tests need ${missing.map(([program]) => program).join(', ')}: apt-get install ${[...new Set(missing.map(([, pkg]) => pkg))].join(' ')} (and libx11-dev)`);
  }
}

/** Compiles tests/cloudhost/fixtures/x11-probe.c into `output`. */
export function buildX11Probe(output: string): void {
  execFileSync('gcc', ['-O1', '-o', output, new URL('../cloudhost/fixtures/x11-probe.c', import.meta.url).pathname, '-lX11'], { stdio: 'pipe' });
}
