import { describe, expect, test } from 'bun:test';
import { Glob } from 'bun';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The import rules of DESIGN.md "Where things live", checked over every file of src/:
 * - no import loop at run time (type-only imports aside: with verbatimModuleSyntax they are written
 *   `import type`, which the transpiler drops; dynamic import() loads lazily, so it is no loop either);
 * - src/server/jobs (the queue) imports nothing from src/server/domains (jobs live in their domains);
 * - src/server/part-uploads (the part protocol packages and content images share) and src/server/storage
 *   (the blob stores and the chunk-store lock) import no domain;
 * - no arrow runs up the domains' floors: packages import nothing of content images, and projects'
 *   services nothing of content images (project media live with the images; only the projects doors
 *   still serve its routes, until each domain declares its own operations);
 * - src/server/outbound (calling third parties) imports no domain, and deploys do not reach into sign-in;
 * - src/shared imports none of server, client, cli, helper; src/cli does not import the server;
 * - the companion app (src/helper) imports only itself and src/shared;
 * - the client imports nothing of the server at run time (types only: AppRouter);
 * - the server imports nothing of the client, not even types (the messages both speak are compiled to
 *   src/shared/i18n/paraglide); one exception: serve.ts's HTML import of the client's page
 *   (src/client/index.html), which Bun bundles into the browser's files (the binary embeds them),
 *   so no client module runs in the server.
 */
const root = resolve(import.meta.dir, '../..');

type Edge = { from: string; to: string; runtime: boolean };

const transpilers = { ts: new Bun.Transpiler({ loader: 'ts' }), tsx: new Bun.Transpiler({ loader: 'tsx' }) };

function sourceFiles(): string[] {
  return [...new Glob('src/**/*.{ts,tsx}').scanSync({ cwd: root })].filter((file) => !file.endsWith('.d.ts')).sort();
}

/** A relative specifier as a path from the repository root (with the file's extension when it has one). */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate);
  }
  return relative(root, base);
}

/** Every `... from '...'` of the text: with the type-only ones the transpiler drops (layering rules count them too). */
const fromClause = /^\s*(?:import|export)\b[^;'"]*?\sfrom\s+['"]([^'"]+)['"]/gm;

function edgesOf(file: string): Edge[] {
  const source = readFileSync(join(root, file), 'utf8');
  const transpiler = file.endsWith('.tsx') ? transpilers.tsx : transpilers.ts;
  const loaded = transpiler.scanImports(source);
  const runtime = loaded.map((item) => ({ specifier: item.path, runtime: item.kind !== 'dynamic-import' }));
  const seen = new Set(loaded.map((item) => item.path));
  const typeOnly = [...source.matchAll(fromClause)].filter((match) => !seen.has(match[1]!)).map((match) => ({ specifier: match[1]!, runtime: false }));
  return [...runtime, ...typeOnly].flatMap(({ specifier, runtime: isRuntime }) => {
    const to = resolveSpecifier(file, specifier);
    return to ? [{ from: file, to, runtime: isRuntime }] : [];
  });
}

/** Every cycle's files (strongly connected components of more than one file, or a file importing itself). */
function findCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    order.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, order.get(next)!));
    }
    if (low.get(node) !== order.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return cycles;
}

const files = sourceFiles();
const edges = files.flatMap(edgesOf);
const inside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
const describeEdge = (edge: Edge) => `${edge.from} → ${edge.to}${edge.runtime ? '' : ' (type)'}`;
const crossing = (from: string, to: string[], options: { runtimeOnly?: boolean } = {}) =>
  edges.filter((edge) => inside(edge.from, from) && to.some((folder) => inside(edge.to, folder)) && (!options.runtimeOnly || edge.runtime)).map(describeEdge);

describe('import rules', () => {
  test('the checker sees the source tree', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(edges.some((edge) => edge.from === 'src/server/serve.ts' && edge.to === 'src/server/jobs-list.ts' && edge.runtime)).toBe(true);
    expect(edges.some((edge) => edge.from === 'src/client/lib/trpc.ts' && edge.to === 'src/server/trpc/router.ts' && !edge.runtime)).toBe(true);
    expect(findCycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(findCycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });

  test('no import loop at run time', () => {
    const graph = new Map<string, string[]>(files.map((file) => [file, []]));
    for (const edge of edges) if (edge.runtime) graph.get(edge.from)!.push(edge.to);
    expect(findCycles(graph)).toEqual([]);
  });

  test('the job queue imports nothing from the domains', () => {
    expect(crossing('src/server/jobs', ['src/server/domains'])).toEqual([]);
  });

  test('the part-upload protocol and the blob storage import no domain', () => {
    expect(crossing('src/server/part-uploads', ['src/server/domains'])).toEqual([]);
    expect(crossing('src/server/storage', ['src/server/domains'])).toEqual([]);
  });

  test('packages import nothing of content images; projects services nothing of content images', () => {
    expect(crossing('src/server/domains/packages', ['src/server/domains/content-images'])).toEqual([]);
    const isDoor = (line: string) => /\.(rest|trpc)\.ts → /.test(line);
    expect(crossing('src/server/domains/projects', ['src/server/domains/content-images']).filter((line) => !isDoor(line))).toEqual([]);
  });

  test('the outbound room imports nothing from the domains; deploys call third parties through it, not through sign-in', () => {
    expect(crossing('src/server/outbound', ['src/server/domains'])).toEqual([]);
    expect(crossing('src/server/domains/deploys', ['src/server/domains/auth/external'])).toEqual([]);
  });

  test('shared imports none of server, client, cli, helper; the cli not the server', () => {
    expect(crossing('src/shared', ['src/server', 'src/client', 'src/cli', 'src/helper'])).toEqual([]);
    expect(crossing('src/cli', ['src/server'])).toEqual([]);
  });

  test('the companion app imports only itself and shared', () => {
    expect(crossing('src/helper', ['src/server', 'src/client', 'src/cli', 'src/tools'])).toEqual([]);
  });

  test('the client imports only types from the server', () => {
    expect(crossing('src/client', ['src/server'], { runtimeOnly: true })).toEqual([]);
  });

  test('the server imports nothing from the client but the page it serves', () => {
    const servedPage = describeEdge({ from: 'src/server/serve.ts', to: 'src/client/index.html', runtime: true });
    expect(crossing('src/server', ['src/client'])).toEqual([servedPage]);
  });
});
