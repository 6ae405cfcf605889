import { expect, test } from 'bun:test';
import { Glob } from 'bun';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/**
 * The companion app is a separate program on the player's computer: src/helper imports its own files,
 * src/shared, Node's modules, zod and package.json (its version), nothing of the server, client or CLI.
 */
const root = resolve(import.meta.dir, '../..');

test('src/helper imports only itself, src/shared, node: modules, zod and package.json', () => {
  const problems: string[] = [];
  const files = [...new Glob('src/helper/**/*.ts').scanSync({ cwd: root })];
  expect(files.length).toBeGreaterThan(10);
  for (const file of files) {
    const source = readFileSync(resolve(root, file), 'utf8');
    for (const match of source.matchAll(/(?:^\s*(?:import|export)\b[^;'"]*?\sfrom\s+|\bimport\()['"]([^'"]+)['"]/gm)) {
      const specifier = match[1]!;
      if (specifier.startsWith('node:') || specifier === 'zod' || specifier === 'bun') continue;
      if (!specifier.startsWith('.')) {
        problems.push(`${file}: ${specifier}`);
        continue;
      }
      const target = relative(root, resolve(root, dirname(file), specifier));
      if (!target.startsWith('src/helper/') && !target.startsWith('src/shared/') && target !== 'package.json') problems.push(`${file}: ${specifier}`);
    }
  }
  expect(problems).toEqual([]);
});
