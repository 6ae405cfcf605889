/**
 * Prints the slowest test files of one or more `bun test --reporter=junit` reports: each file's own
 * time (its tests, hooks and server starts), slowest first, so CI shows where its minutes go.
 *
 *   bun src/tools/slowest-test-files.ts [--count 10] report.xml [report2.xml ...]
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const countIndex = args.indexOf('--count');
const count = countIndex === -1 ? 10 : Number(args[countIndex + 1]);
const reports = countIndex === -1 ? args : args.filter((_, index) => index !== countIndex && index !== countIndex + 1);

type FileTime = { file: string; seconds: number; tests: number; report: string };

/** Top-level suites only: their name is the file itself (nested describe blocks repeat the file attribute). */
function fileTimes(report: string): FileTime[] {
  const xml = readFileSync(report, 'utf8');
  const times: FileTime[] = [];
  for (const match of xml.matchAll(/<testsuite name="([^"]*)" file="([^"]*)"[^>]*?tests="(\d+)"[^>]*?time="([\d.]+)"/g)) {
    const [, name, file, tests, seconds] = match;
    if (name !== file) continue;
    times.push({ file: file!, seconds: Number(seconds), tests: Number(tests), report });
  }
  return times;
}

const all = reports.flatMap(fileTimes).sort((a, b) => b.seconds - a.seconds);
const label = (report: string) => report.replace(/^.*\//, '').replace(/\.xml$/, '');
console.log(`slowest test files (of ${all.length} file runs):`);
for (const { file, seconds, tests, report } of all.slice(0, count)) {
  console.log(`${seconds.toFixed(1).padStart(7)} s  ${file} (${tests} tests, ${label(report)})`);
}
