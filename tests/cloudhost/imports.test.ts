import { expect, test } from 'bun:test';
import { Glob } from 'bun';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/**
 * The host agent is a separate program that reaches the server only over HTTP: cloudhost/src imports
 * its own files, src/shared, Node's modules and its two packages (werift, x11), nothing else.
 */
const root = resolve(import.meta.dir, '../..');
const allowedPackages = new Set(['werift', 'x11', 'zod', 'zstddec']);

test('cloudhost/src imports only itself, src/shared, node: modules, werift and x11', () => {
  const problems: string[] = [];
  const files = [...new Glob('cloudhost/src/**/*.ts').scanSync({ cwd: root })].filter((file) => !file.endsWith('.d.ts'));
  expect(files.length).toBeGreaterThan(5);
  for (const file of files) {
    const source = readFileSync(resolve(root, file), 'utf8');
    for (const match of source.matchAll(/^\s*(?:import|export)\b[^;'"]*?\sfrom\s+['"]([^'"]+)['"]/gm)) {
      const specifier = match[1]!;
      if (specifier.startsWith('node:')) continue;
      if (!specifier.startsWith('.')) {
        if (!allowedPackages.has(specifier)) problems.push(`${file}: ${specifier}`);
        continue;
      }
      const target = relative(root, resolve(root, dirname(file), specifier));
      if (!target.startsWith('cloudhost/src/') && !target.startsWith('src/shared/')) problems.push(`${file}: ${specifier}`);
    }
  }
  expect(problems).toEqual([]);
});
