import type { BrowserContext, Page } from 'playwright-core';

/** What the page recorded, every time in its own performance.now() milliseconds (the long tasks' clock). */
export type ProbeRecord = {
  /** False when this Chromium does not report 'longtask' entries: no task figure can be given then. */
  longTaskSupported: boolean;
  longTasks: { start: number; duration: number }[];
  /** Each change of an upload item's data-status, in order (the bench adds one package). */
  statuses: { status: string; at: number }[];
  /** When the new package dialog's form was submitted (the Create click). */
  createAt: number | null;
  /** Marks the bench sets through markProbe (e.g. 'files' when the folder is handed to the input). */
  marks: Record<string, number>;
};

type ProbeWindow = { __uploadBench?: ProbeRecord };

/**
 * Runs in every document before the app's scripts (context.addInitScript, serialised: no imports or
 * outside names): the long task observer (buffered, so nothing from before it counts as missing), the
 * Create click, and the upload item's statuses as the DOM shows them (a MutationObserver, no polling).
 */
function installProbe(): void {
  const record: ProbeRecord = { longTaskSupported: false, longTasks: [], statuses: [], createAt: null, marks: {} };
  (window as ProbeWindow).__uploadBench = record;
  if (PerformanceObserver.supportedEntryTypes.includes('longtask')) {
    record.longTaskSupported = true;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) record.longTasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  }
  document.addEventListener(
    'submit',
    (event) => {
      if (event.target instanceof Element && event.target.closest('.new_package_dialog')) record.createAt = performance.now();
    },
    true,
  );
  const seen = new WeakMap<Element, string>();
  const scan = () => {
    for (const item of document.querySelectorAll('.upload_item')) {
      const status = item.getAttribute('data-status');
      if (status && seen.get(item) !== status) {
        seen.set(item, status);
        record.statuses.push({ status, at: performance.now() });
      }
    }
  };
  new MutationObserver(scan).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
}

export async function addProbe(context: BrowserContext): Promise<void> {
  await context.addInitScript(installProbe);
}

export async function markProbe(page: Page, name: string): Promise<void> {
  await page.evaluate((mark) => {
    const record = (window as ProbeWindow).__uploadBench;
    if (record) record.marks[mark] = performance.now();
  }, name);
}

export async function readProbe(page: Page): Promise<ProbeRecord> {
  const record = await page.evaluate(() => (window as ProbeWindow).__uploadBench ?? null);
  if (!record) throw new Error('the page has no upload probe (the init script did not run)');
  return record;
}

/** `longestAt`: when the longest one started, in ms after `from` (undefined without any). */
export type TaskSummary = { count: number; totalMs: number; longestMs: number; longestAt: number | undefined };

/** The long tasks that started in [from, to). */
export function tasksBetween(record: ProbeRecord, from: number, to: number): TaskSummary {
  const tasks = record.longTasks.filter((task) => task.start >= from && task.start < to);
  const longest = tasks.reduce<ProbeRecord['longTasks'][number] | undefined>((found, task) => (found && found.duration >= task.duration ? found : task), undefined);
  return {
    count: tasks.length,
    totalMs: tasks.reduce((sum, task) => sum + task.duration, 0),
    longestMs: longest?.duration ?? 0,
    longestAt: longest ? longest.start - from : undefined,
  };
}

/** When the item first showed `status` (undefined if it never did). */
export function statusAt(record: ProbeRecord, status: string): number | undefined {
  return record.statuses.find((item) => item.status === status)?.at;
}
