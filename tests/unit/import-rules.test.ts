import { describe, expect, test } from 'bun:test';
import { Glob } from 'bun';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The import rules of docs/architecture.md ("Rooms and their imports"), checked over every file of src/
 * and cloudhost/src/; every rule the map states is a test here (tests/unit/architecture-doc.test.ts
 * checks the paths it names exist):
 * - no import loop at run time (type-only imports aside: with verbatimModuleSyntax they are written
 *   `import type`, which the transpiler drops; dynamic import() loads lazily, so it is no loop either);
 * - src/shared imports none of the other rooms; the separate programs (src/cli, src/helper, cloudhost)
 *   import only themselves, src/shared (and the CLI and helper the root package.json, for their
 *   version), and nothing of the server, client or shared imports them;
 * - the client imports nothing of the server at run time (types only: AppRouter); only React code
 *   (a .tsx, or a module of hooks) loads the tRPC client, and the upload engine knows no React;
 * - the server imports nothing of the client, not even types (the messages both speak are compiled to
 *   src/shared/i18n/paraglide); one exception: serve.ts's HTML import of the client's page
 *   (src/client/index.html), which Bun bundles into the browser's files (the binary embeds them),
 *   so no client module runs in the server;
 * - the transport rule: Elysia and tRPC are known only by the doors (app.ts, http/, trpc/,
 *   operations/ and a domain's *.operations.ts, *.rest.ts, *-doors.ts); nothing else of the server
 *   imports a door but serve.ts (createApp), and no door touches a table (db/schema);
 * - src/server/jobs (the queue) imports nothing from src/server/domains (jobs live in their domains);
 * - src/server/part-uploads (the part protocol packages and content images share) and src/server/storage
 *   (the blob stores and the chunk-store lock) import no domain;
 * - no arrow runs up the domains' floors: packages and projects import nothing of content images
 *   (project media live with the images, which build on projects);
 * - src/server/outbound (calling third parties) imports no domain, and deploys do not reach into sign-in.
 */
const root = resolve(import.meta.dir, '../..');

/** An import: `to` is a path from the root, or a package's name when `bare`. */
type Edge = { from: string; to: string; runtime: boolean; bare: boolean };

const transpilers = { ts: new Bun.Transpiler({ loader: 'ts' }), tsx: new Bun.Transpiler({ loader: 'tsx' }) };

function sourceFiles(): string[] {
  const scan = (pattern: string) => [...new Glob(pattern).scanSync({ cwd: root })];
  return [...scan('src/**/*.{ts,tsx}'), ...scan('cloudhost/src/**/*.ts')].filter((file) => !file.endsWith('.d.ts')).sort();
}

/** A relative specifier as a path from the repository root (with the file's extension when it has one). */
function resolveSpecifier(from: string, specifier: string): string {
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
  return [...runtime, ...typeOnly].map(({ specifier, runtime: isRuntime }) =>
    specifier.startsWith('.') ? { from: file, to: resolveSpecifier(file, specifier), runtime: isRuntime, bare: false } : { from: file, to: specifier, runtime: isRuntime, bare: true },
  );
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
const allEdges = files.flatMap(edgesOf);
/** Imports of files of the repository. */
const edges = allEdges.filter((edge) => !edge.bare);
const inside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
const describeEdge = (edge: Edge) => `${edge.from} → ${edge.to}${edge.runtime ? '' : ' (type)'}`;
/** The imports from `from` that land outside every one of `allowed`. */
const leaving = (from: string, allowed: string[]) =>
  edges.filter((edge) => inside(edge.from, from) && !allowed.some((folder) => inside(edge.to, folder))).map(describeEdge);
const crossing = (from: string, to: string[], options: { runtimeOnly?: boolean } = {}) =>
  edges.filter((edge) => inside(edge.from, from) && to.some((folder) => inside(edge.to, folder)) && (!options.runtimeOnly || edge.runtime)).map(describeEdge);

describe('import rules', () => {
  test('the checker sees the source tree', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(edges.some((edge) => edge.from === 'src/server/serve.ts' && edge.to === 'src/server/jobs-list.ts' && edge.runtime)).toBe(true);
    expect(edges.some((edge) => edge.from === 'src/client/lib/trpc.ts' && edge.to === 'src/server/trpc/router.ts' && !edge.runtime)).toBe(true);
    expect(edges.some((edge) => edge.from === 'cloudhost/src/agent.ts' && inside(edge.to, 'src/shared'))).toBe(true);
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

  test('packages and projects import nothing of content images', () => {
    expect(crossing('src/server/domains/packages', ['src/server/domains/content-images'])).toEqual([]);
    expect(crossing('src/server/domains/projects', ['src/server/domains/content-images'])).toEqual([]);
  });

  test('the outbound room imports nothing from the domains; deploys call third parties through it, not through sign-in', () => {
    expect(crossing('src/server/outbound', ['src/server/domains'])).toEqual([]);
    expect(crossing('src/server/domains/deploys', ['src/server/domains/auth/external'])).toEqual([]);
  });

  test('shared imports none of the other rooms', () => {
    expect(crossing('src/shared', ['src/server', 'src/client', 'src/cli', 'src/helper', 'src/tools', 'cloudhost'])).toEqual([]);
  });

  test('the separate programs import only themselves and shared (the CLI and the helper their package.json too)', () => {
    expect(leaving('src/cli', ['src/cli', 'src/shared', 'package.json'])).toEqual([]);
    expect(leaving('src/helper', ['src/helper', 'src/shared', 'package.json'])).toEqual([]);
    expect(leaving('cloudhost/src', ['cloudhost/src', 'src/shared'])).toEqual([]);
  });

  test('nothing of the server, client or shared imports a separate program', () => {
    for (const room of ['src/server', 'src/client', 'src/shared']) expect(crossing(room, ['src/cli', 'src/helper', 'cloudhost'])).toEqual([]);
  });

  test('the client imports only types from the server', () => {
    expect(crossing('src/client', ['src/server'], { runtimeOnly: true })).toEqual([]);
  });

  test('the client rule: only React code loads the tRPC client; the upload engine knows no React', () => {
    const exportsHook = (file: string) => /^export (?:async )?function use[A-Z]/m.test(readFileSync(join(root, file), 'utf8'));
    const loaders = edges.filter((edge) => edge.runtime && edge.to === 'src/client/lib/trpc.ts').map((edge) => edge.from);
    expect(loaders.length).toBeGreaterThan(10);
    expect(loaders.filter((file) => !file.endsWith('.tsx') && !exportsHook(file))).toEqual([]);
    const react = (edge: Edge) => edge.bare && /^(react|react-dom|@tanstack\/react-query|@trpc\/)/.test(edge.to);
    expect(allEdges.filter((edge) => inside(edge.from, 'src/client/upload') && (react(edge) || edge.to === 'src/client/lib/trpc.ts')).map(describeEdge)).toEqual([]);
  });

  test('the server imports nothing from the client but the page it serves', () => {
    const servedPage = describeEdge({ from: 'src/server/serve.ts', to: 'src/client/index.html', runtime: true, bare: false });
    expect(crossing('src/server', ['src/client'])).toEqual([servedPage]);
  });

  describe('the transport rule', () => {
    const transportPackage = /^(elysia|@elysiajs\/|@trpc\/server)/;
    const knowsTransport = new Set(allEdges.filter((edge) => edge.bare && transportPackage.test(edge.to)).map((edge) => edge.from));
    /** Where Elysia and tRPC may be named: the app, the HTTP plumbing, tRPC, the derived doors, each domain's bindings and hand-written doors. */
    const isTransportRoom = (file: string) =>
      file === 'src/server/app.ts' ||
      ['src/server/http', 'src/server/trpc', 'src/server/operations'].some((folder) => inside(file, folder)) ||
      (inside(file, 'src/server/domains') && /(\.operations|\.rest|-doors)\.ts$/.test(file));
    /** A door: of those, all but the http/ helpers that know no Elysia (a Range header's parser, the page's language). */
    const isDoor = (file: string) => isTransportRoom(file) && (!inside(file, 'src/server/http') || knowsTransport.has(file));

    test('the checker knows the doors', () => {
      expect(isDoor('src/server/operations/rest-door.ts')).toBe(true);
      expect(isDoor('src/server/domains/projects/branches.operations.ts')).toBe(true);
      expect(isDoor('src/server/domains/auth/session-doors.ts')).toBe(true);
      expect(isDoor('src/server/domains/projects/branches.service.ts')).toBe(false);
      expect(isDoor('src/server/http/body-guard.ts')).toBe(true);
      expect(isDoor('src/server/http/range.ts')).toBe(false);
      expect(allEdges.some((edge) => edge.from === 'src/server/operations/rest-door.ts' && edge.to === 'elysia')).toBe(true);
    });

    test('only the doors know Elysia and tRPC', () => {
      const knowing = [...knowsTransport].filter((file) => inside(file, 'src/server'));
      expect(knowing.length).toBeGreaterThan(5);
      expect(knowing.filter((file) => !isTransportRoom(file))).toEqual([]);
    });

    test('services import no door (only serve.ts mounts the app)', () => {
      const intoDoors = edges.filter((edge) => inside(edge.from, 'src/server') && !isDoor(edge.from) && isDoor(edge.to));
      expect(intoDoors.map(describeEdge)).toEqual(['src/server/serve.ts → src/server/app.ts']);
    });

    test('no door touches a table: they call services', () => {
      const tables = edges.filter((edge) => isTransportRoom(edge.from) && inside(edge.to, 'src/server/db/schema'));
      expect(tables.map(describeEdge)).toEqual([]);
    });
  });
});
