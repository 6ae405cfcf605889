import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readButlerRecords, type FakeButlerMode, type FakeButlerRecord } from './butler.ts';
import { writeExecutable } from '../executable-file.ts';

export { fingerprintKey, startFakeItchApi, type FakeItchApi } from './api.ts';
export { FAKE_BUTLER_VERSION_STRING, readButlerRecords } from './butler.ts';

/** The executable wrapper checked in beside butler.ts (reads all its settings from the environment). */
export const FAKE_BUTLER_SCRIPT = join(import.meta.dir, 'butler');

export type FakeButler = {
  /** An executable to give the server as BUTLER_PATH. */
  path: string;
  /** Where each run appends its record (FAKE_BUTLER_RECORD). */
  recordFile: string;
  /** Every push so far, oldest first. */
  records(): FakeButlerRecord[];
  /** How the next runs behave (read by every run: no restart of the server needed); steps/stepMs pace the progress lines. */
  control(settings: { mode?: FakeButlerMode; steps?: number; stepMs?: number }): void;
  cleanup(): void;
};

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * A fake butler in a temp folder, its settings baked into the wrapper as defaults (a server that passes
 * a trimmed environment to butler still reaches the fake API and the record file; variables set in the
 * environment still win). apiUrl: the fake API's url (butler's own `--address`, if the server passes
 * it, wins over it too).
 */
export function installFakeButler(options: { apiUrl: string; steps?: number; stepMs?: number }): FakeButler {
  const dir = mkdtempSync(join(tmpdir(), 'fake-butler-'));
  const path = join(dir, 'butler');
  const recordFile = join(dir, 'records.jsonl');
  const controlFile = join(dir, 'control.json');
  const control: FakeButler['control'] = (settings) => writeFileSync(controlFile, JSON.stringify({ steps: options.steps, stepMs: options.stepMs, ...settings }));
  control({});
  const defaults = { FAKE_BUTLER_API_URL: options.apiUrl, FAKE_BUTLER_RECORD: recordFile, FAKE_BUTLER_CONTROL: controlFile };
  const lines = Object.entries(defaults).map(([name, value]) => `: "\${${name}:=${value.replaceAll(/["\\$`]/g, (char) => `\\${char}`)}}"; export ${name}`);
  writeExecutable(path, ['#!/bin/sh', '# Fake butler for one test run (tests/support/fake-itch).', ...lines, `exec ${quote(process.execPath)} ${quote(join(import.meta.dir, 'butler.ts'))} "$@"`, ''].join('\n'));
  return {
    path,
    recordFile,
    records: () => readButlerRecords(recordFile),
    control,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
