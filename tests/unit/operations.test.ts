import { describe, expect, test } from 'bun:test';
import { routes } from '../../src/shared/api/routes.ts';
import { operations } from '../../src/server/operations/operations.ts';
import { isBoundOperation } from '../../src/server/operations/binding.ts';

/** Every leaf of a tree by its dotted name: rows of the route table, or bound operations. */
function leaves(tree: object, isLeaf: (node: unknown) => boolean, prefix = ''): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const [key, node] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (isLeaf(node)) found.set(name, node);
    else if (typeof node === 'object' && node !== null) for (const [inner, leaf] of leaves(node, isLeaf, name)) found.set(inner, leaf);
  }
  return found;
}

const isRow = (node: unknown) => typeof node === 'object' && node !== null && 'method' in node && 'path' in node;

describe('the operations tree (src/server/operations/operations.ts)', () => {
  test('holds every row of the route table under the same name, bound to that row', () => {
    const rows = leaves(routes, isRow);
    const bound = leaves(operations, isBoundOperation);
    expect(rows.size).toBeGreaterThan(50);
    expect([...bound.keys()].sort()).toEqual([...rows.keys()].sort());
    const misbound = [...rows].filter(([name, row]) => (bound.get(name) as { route: unknown } | undefined)?.route !== row).map(([name]) => name);
    expect(misbound).toEqual([]);
  });
});
