import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of process trees from /proc (Linux): utime + stime of each process (all its threads),
 * sampled twice; what a tree used in between, as a share of one core.
 *
 *   const before = sampleProcesses();
 *   ...
 *   const used = cpuBetween(before, sampleProcesses(), descendantsOf(agentPid, before), wallMs);
 */
export type ProcessSample = { pid: number; ppid: number; comm: string; cmdline: string; ticks: number };
/** `machine`: busy clock ticks of all the machine's CPUs together (the first line of /proc/stat). */
export type Sample = { at: number; processes: Map<number, ProcessSample>; machineBusyTicks: number };

let ticksPerSecond: number | undefined;

/** sysconf(_SC_CLK_TCK): the unit of utime and stime (100 on Linux almost always). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

function readProcess(pid: number): ProcessSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) is in parentheses and may hold spaces: the rest is read after its last ')'.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
    const ppid = Number(fields[1]);
    const ticks = Number(fields[11]) + Number(fields[12]);
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      // Gone meanwhile.
    }
    return { pid, ppid, comm, cmdline, ticks };
  } catch {
    return undefined;
  }
}

function machineBusyTicks(): number {
  // cpu  user nice system idle iowait irq softirq steal ...: everything but idle and iowait is busy.
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return user! + nice! + system! + irq! + softirq! + (steal ?? 0);
}

/** Every process on the machine, now. */
export function sampleProcesses(): Sample {
  const machine = machineBusyTicks();
  const processes = new Map<number, ProcessSample>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const sample = readProcess(Number(name));
    if (sample) processes.set(sample.pid, sample);
  }
  return { at: performance.now(), processes, machineBusyTicks: machine };
}

/** `root` and every process below it in the sample. */
export function descendantsOf(root: number, sample: Sample): number[] {
  const children = new Map<number, number[]>();
  for (const process of sample.processes.values()) {
    const list = children.get(process.ppid) ?? [];
    list.push(process.pid);
    children.set(process.ppid, list);
  }
  const found: number[] = [];
  const queue = sample.processes.has(root) ? [root] : [];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

export type CpuUse = { percentOfCore: number; seconds: number; byGroup: Map<string, number> };

/**
 * CPU the processes `pids` (of the later sample) used between two samples, in % of one core over the
 * wall time between them; `groupOf` names each process's group for the breakdown (% of a core each).
 * A process started in between counts whole; one that ended in between is not seen (its parent's
 * cutime would hold it): sample around a steady state.
 */
export function cpuBetween(before: Sample, after: Sample, pids: number[], groupOf: (process: ProcessSample, sample: Sample) => string = (process) => process.comm): CpuUse {
  const seconds = (after.at - before.at) / 1000;
  const byGroup = new Map<string, number>();
  let ticks = 0;
  for (const pid of pids) {
    const now = after.processes.get(pid);
    if (!now) continue;
    const then = before.processes.get(pid);
    const used = now.ticks - (then && then.comm === now.comm ? then.ticks : 0);
    ticks += used;
    const group = groupOf(now, after);
    byGroup.set(group, (byGroup.get(group) ?? 0) + used);
  }
  const percent = (value: number) => (value / clockTicks() / seconds) * 100;
  for (const [group, value] of byGroup) byGroup.set(group, percent(value));
  return { percentOfCore: percent(ticks), seconds, byGroup };
}

/** What all the machine's CPUs did between two samples, in % of one core (200% is two cores busy). */
export function machineBusyBetween(before: Sample, after: Sample): number {
  return ((after.machineBusyTicks - before.machineBusyTicks) / clockTicks() / ((after.at - before.at) / 1000)) * 100;
}
