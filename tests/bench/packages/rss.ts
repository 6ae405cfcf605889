import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Resident memory of another process, from /proc/<pid>/status: VmRSS sampled every `intervalMs`, and
 * the kernel's own high-water mark (VmHWM, reset at each phase through /proc/<pid>/clear_refs) so a
 * spike between two samples is not missed.
 */
export type RssPhase = { name: string; startBytes: number; peakBytes: number; hwmBytes: number | undefined; samples: number };

export type RssSampler = {
  /** The current RSS in bytes (0 once the process is gone). */
  current(): number;
  /** Runs `work` as a named phase and records its peak. */
  measure<T>(name: string, work: () => Promise<T>): Promise<{ value: T; phase: RssPhase }>;
  stop(): void;
};

function readStatus(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0); false when the kernel refuses. */
function resetHighWaterMark(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export function startRssSampler(pid: number, intervalMs = 50): RssSampler {
  let active: RssPhase | undefined;
  const sample = () => {
    const status = readStatus(pid);
    if (!status || !active) return;
    active.peakBytes = Math.max(active.peakBytes, status.rss);
    active.samples++;
  };
  const timer = setInterval(sample, intervalMs);
  return {
    current: () => readStatus(pid)?.rss ?? 0,
    async measure(name, work) {
      if (active) throw new Error(`RSS phase ${name} started inside ${active.name}`);
      const canReset = resetHighWaterMark(pid);
      const phase: RssPhase = { name, startBytes: readStatus(pid)?.rss ?? 0, peakBytes: 0, hwmBytes: undefined, samples: 0 };
      active = phase;
      sample();
      try {
        const value = await work();
        sample();
        if (canReset) phase.hwmBytes = readStatus(pid)?.hwm;
        return { value, phase };
      } finally {
        active = undefined;
      }
    },
    stop: () => clearInterval(timer),
  };
}

/** The larger of the sampled peak and the kernel's high-water mark. */
export function peakOf(phase: RssPhase): number {
  return Math.max(phase.peakBytes, phase.hwmBytes ?? 0);
}
