import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { descendantsOf, sampleProcesses } from '../bench/proc-cpu.ts';

/**
 * CPU contention for the cloud-play frame-shedding test and benchmark: busy loops on the host's
 * cores, and the session's video encoder made the loser of the competition for them.
 *
 *   const loops = startBusyLoops(2);
 *   deprioritise(videoEncoderPid(agent.process.pid!)!, 10);
 *   ...
 *   loops.stop();
 */
export type BusyLoops = { pids: number[]; stop(): void };

const running = new Set<number>();
// A loop must never outlive the test or benchmark that started it, whatever way that ends.
process.once('exit', () => {
  for (const pid of running) killQuietly(pid);
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/**
 * `count` shell busy loops at normal priority, each in a session of its own (as independent programs
 * are: where the kernel groups tasks by session, autogroup, each loop weighs as much as any program).
 */
export function startBusyLoops(count: number): BusyLoops {
  const pids: number[] = [];
  for (let index = 0; index < count; index++) {
    const loop = spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore', detached: true });
    loop.unref();
    if (loop.pid === undefined) continue;
    pids.push(loop.pid);
    running.add(loop.pid);
  }
  return {
    pids,
    stop() {
      for (const pid of pids) {
        killQuietly(pid);
        running.delete(pid);
      }
    },
  };
}

/** The session's video encoder: the ffmpeg below the agent (`agentPid`) that grabs the display. */
export function videoEncoderPid(agentPid: number): number | undefined {
  const sample = sampleProcesses();
  return descendantsOf(agentPid, sample).find((pid) => {
    const process = sample.processes.get(pid)!;
    return process.comm === 'ffmpeg' && process.cmdline.includes('x11grab');
  });
}

/**
 * Every thread of `pid` at `nice`, and its scheduling group too where the kernel groups tasks by
 * session (/proc/PID/autogroup): between groups only the group's nice counts.
 */
export function deprioritise(pid: number, nice: number): void {
  const threads = readdirSync(`/proc/${pid}/task`);
  const renice = spawnSync('renice', ['-n', String(nice), '-p', ...threads], { encoding: 'utf8' });
  if (renice.status !== 0) throw new Error(`renice: ${renice.stderr}`);
  if (existsSync(`/proc/${pid}/autogroup`)) writeFileSync(`/proc/${pid}/autogroup`, String(nice));
}

/**
 * How old the newest picture a player had was, every `stepMs` from `from` to `to` (ms, one clock):
 * `shownAt` when a frame reached the player, `drawnAt` when the game drew it. Between two frames
 * the picture ages, so a stream that stalls or sheds to a few frames a second counts against it.
 */
export function newestPictureAges(frames: { shownAt: number; drawnAt: number }[], from: number, to: number, stepMs = 50): number[] {
  const shown = [...frames].sort((a, b) => a.shownAt - b.shownAt);
  const ages: number[] = [];
  let index = -1;
  for (let at = from; at <= to; at += stepMs) {
    while (index + 1 < shown.length && shown[index + 1]!.shownAt <= at) index += 1;
    // Nothing shown yet: as old as the wait so far.
    ages.push(index < 0 ? at - from : at - shown[index]!.drawnAt);
  }
  return ages;
}
