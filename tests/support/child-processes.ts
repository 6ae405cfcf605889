import { readdirSync, readFileSync } from 'node:fs';

/** The processes whose parent is `parent` (this process by default), with their command lines (Linux /proc). */
export function childProcesses(parent = process.pid): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the command name in parentheses: the state, then the parent's pid.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== parent) continue;
      found.push({ pid: Number(name), command: readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim() });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Resident memory of a process, in bytes (0 once it is gone). */
export function residentBytesOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096;
  } catch {
    return 0;
  }
}
