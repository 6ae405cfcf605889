/**
 * The README's promises that drift silently (issue 29): its settings table lists every variable the
 * server reads, and the Node.js version it asks for is package.json's and satisfies every installed
 * package's declared `engines.node`.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configVariables, readVariableNames } from '../../src/server/config.ts';

const root = resolve(import.meta.dir, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The variable names in the first column of the settings table: the first table under "## Configuration". */
function settingsTableNames(): Set<string> {
  const lines = readme.slice(readme.indexOf('\n## Configuration\n')).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  const names = new Set<string>();
  for (const line of lines.slice(start, end)) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const match of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(match[1]!);
  }
  return names;
}

describe('README settings table', () => {
  test('lists every variable src/server/config.ts reads, and only those', () => {
    const listed = settingsTableNames();
    expect(listed.size).toBeGreaterThan(50);
    const missing = readVariableNames.filter((name) => !listed.has(name));
    expect(missing).toEqual([]);
    const unknown = [...listed].filter((name) => !readVariableNames.includes(name));
    expect(unknown).toEqual([]);
  });

  test('the --help list (configVariables) names exactly the variables read', () => {
    expect(configVariables.map(([name]): string => name).sort()).toEqual([...readVariableNames].sort());
  });
});

/** Every installed package's `engines.node`, nested node_modules included. */
function declaredNodeRanges(): { name: string; range: string }[] {
  const found: { name: string; range: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith('.')) continue;
      const path = join(dir, entry);
      if (entry.startsWith('@')) {
        walk(path);
        continue;
      }
      const manifest = join(path, 'package.json');
      if (!existsSync(manifest)) continue;
      try {
        const json = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; engines?: { node?: unknown } };
        if (typeof json.engines?.node === 'string') found.push({ name: json.name ?? entry, range: json.engines.node });
      } catch {
        // A broken manifest in node_modules declares nothing.
      }
      if (existsSync(join(path, 'node_modules'))) walk(join(path, 'node_modules'));
    }
  };
  walk(join(root, 'node_modules'));
  return found;
}

describe('the minimum Node.js version', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  const stated = /Node\.js \*\*(\d+\.\d+) or newer\*\*/.exec(readme)?.[1];

  test("the README states it, and it is package.json's engines.node", () => {
    expect(stated).toBeDefined();
    expect(manifest.engines?.node).toBe(`>=${stated}`);
  });

  test('it satisfies every installed package that declares one (werift: node >=22)', () => {
    const ranges = declaredNodeRanges();
    expect(ranges.find((item) => item.name === 'werift')?.range).toBeDefined();
    const unmet = ranges.filter(({ range }) => !Bun.semver.satisfies(`${stated}.0`, range)).map(({ name, range }) => `${name} ${range}`);
    expect(unmet).toEqual([]);
  });

  test('the cloud-play host page asks for what werift declares', () => {
    const werift = declaredNodeRanges().find((item) => item.name === 'werift')!.range;
    const major = /^>=\s*(\d+)/.exec(werift)?.[1];
    expect(readFileSync(join(root, 'docs/en/cloud-play-hosts.md'), 'utf8')).toContain(`Node.js ${major} or later`);
  });
});
