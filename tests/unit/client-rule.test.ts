import { describe, expect, test } from 'bun:test';
import { Glob } from 'bun';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isHandwritten } from '../../src/server/operations/binding.ts';
import { operationList } from '../../src/server/operations/operations.ts';
import { appRouter } from '../../src/server/trpc/router.ts';

/**
 * The client rule (src/client/README.md, docs/architecture.md "The client rule"): React screens use the tRPC
 * hooks of an operation, so each datum has one cache that every screen reads and invalidates; code outside
 * React (the upload worker, plain modules, the CLI, the agents) uses the shared REST client. Checked over
 * every .tsx file of src/client and every .ts file there that uses React (imports it or calls a hook):
 * - no REST call (`api.call(routes.x.y, ...)`) of an operation that has a tRPC procedure; which ones have
 *   none is read from the operations tree (hand-written doors without a procedure), not listed here;
 * - no other use of the REST client (`api.fetchFile`, a call whose route is not `routes.x.y`) unless allowed below;
 * - no hand-made query key (`queryKey:`, `setQueryData`, `getQueryData`) unless allowed below: the tRPC
 *   hooks make the key of every operation, and a second key is a second cache that goes stale.
 */
const root = resolve(import.meta.dir, '../..');

/** REST in React that stays, each with its reason: what no tRPC procedure can do. */
const restAllowed: { file: string; use: string; why: string }[] = [
  { file: 'src/client/components/archive-browser.tsx', use: 'api.fetchFile', why: 'reads the archive index at a signed file URL: a file, not an operation' },
  { file: 'src/client/dialogs/new-package/use-package-index.ts', use: 'api.fetchFile', why: "reads the base package's index at a signed file URL: a file, not an operation" },
];

/** Hand-made query keys that stay: data that is no operation of this server's. */
const keysAllowed: { file: string; why: string }[] = [
  { file: 'src/client/components/archive-browser.tsx', why: "an archive's index read from a signed file URL (api.fetchFile)" },
  { file: 'src/client/lib/local-app/use-local-app.ts', why: "the companion app's answers on loopback, not this server's" },
];

/** Dotted route names ('deploys.sites.list') of every row (tests/unit/operations.test.ts: the tree's are the table's), and whether its operation has a tRPC procedure. */
const names = new Map(operationList().map(({ name, binding }) => [name, !isHandwritten(binding) || binding.procedure !== undefined]));
const withProcedure = new Set([...names].filter(([, has]) => has).map(([name]) => name));

function clientFiles(): string[] {
  return [...new Glob('src/client/**/*.{ts,tsx}').scanSync({ cwd: root })].filter((file) => !file.endsWith('.d.ts') && !file.includes('/paraglide/')).sort();
}

const reactImport = /\bfrom\s+['"](?:react|@tanstack\/react-query|@trpc\/react-query)['"]/;
const hookCall = /(?<![\w.])use[A-Z]\w*\(/;

/** A .tsx file, or a .ts file that imports React or calls a hook. */
function isReactFile(file: string, source: string): boolean {
  return file.endsWith('.tsx') || reactImport.test(source) || hookCall.test(source);
}

/** Comments out of the way: a rule quoted in a comment is no call. */
function code(source: string): string {
  // Each comment leaves its line breaks: findings keep their line numbers.
  return source.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, '')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

type Finding = { file: string; line: number; text: string };

function lineOf(source: string, index: number): number {
  return source.slice(0, index).split('\n').length;
}

/** Every REST use of the file that the rule refuses. */
function restFindings(file: string, source: string): Finding[] {
  const found: Finding[] = [];
  const allowed = (use: string) => restAllowed.some((item) => item.file === file && item.use === use);
  // `x.call(routes.a.b, ...)` of any client, and any `api.call(...)`.
  for (const match of source.matchAll(/(\w+\)?)\s*\.\s*call\s*\(\s*([^,)]*)/g)) {
    const [text, receiver, argument] = match as unknown as [string, string, string];
    const target = argument.trim();
    const route = /^routes\.([\w.]+)$/.exec(target)?.[1];
    if (!route && receiver !== 'api') continue;
    if (route && names.has(route) && !withProcedure.has(route)) continue;
    if (allowed(`api.call(${target})`)) continue;
    const why = route && withProcedure.has(route) ? `routes.${route} has the tRPC procedure ${route}` : `${target}: not a row of the route table`;
    found.push({ file, line: lineOf(source, match.index), text: `${text} (${why})` });
  }
  for (const match of source.matchAll(/\bapi\s*\.\s*(fetchFile)\s*\(|\b(createApiClient)\s*\(/g)) {
    const use = match[1] ? `api.${match[1]}` : match[2]!;
    if (!allowed(use)) found.push({ file, line: lineOf(source, match.index), text: match[0] });
  }
  return found;
}

/** Every query key the file makes itself. */
function keyFindings(file: string, source: string): Finding[] {
  if (keysAllowed.some((item) => item.file === file)) return [];
  return [...source.matchAll(/\bqueryKey\s*:|\.(?:set|get)QueryData\b/g)].map((match) => ({ file, line: lineOf(source, match.index), text: match[0] }));
}

const show = (findings: Finding[]) => findings.map((item) => `${item.file}:${item.line} ${item.text}`);

describe('the client rule: React uses tRPC, code outside React the REST client', () => {
  const files = clientFiles().map((file) => ({ file, source: code(readFileSync(join(root, file), 'utf8')) }));
  const react = files.filter(({ file, source }) => isReactFile(file, source));

  test('the operations tree names the procedures the tRPC router has', () => {
    const procedures = Object.keys((appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def.procedures).sort();
    expect(procedures).toEqual([...withProcedure].sort());
    // The check below has rows on both sides to tell apart.
    expect(names.size).toBeGreaterThan(withProcedure.size);
    expect(react.length).toBeGreaterThan(50);
  });

  test('no React file calls REST for an operation that has a tRPC procedure', () => {
    expect(show(react.flatMap(({ file, source }) => restFindings(file, source)))).toEqual([]);
  });

  test('no React file makes its own query key', () => {
    expect(show(react.flatMap(({ file, source }) => keyFindings(file, source)))).toEqual([]);
  });

  test('every allowed exception is still there (a stale one is taken off the list)', () => {
    for (const item of restAllowed) {
      const file = files.find((entry) => entry.file === item.file);
      expect(file, item.file).toBeDefined();
      expect(file!.source.replace(/\s+/g, '')).toContain(item.use.startsWith('api.call(') ? item.use.slice(0, -1) : `${item.use}(`);
    }
    for (const item of keysAllowed) {
      const file = files.find((entry) => entry.file === item.file);
      expect(file, item.file).toBeDefined();
      expect(file!.source).toMatch(/\bqueryKey\s*:/);
    }
  });

  test('the scan finds what it looks for', () => {
    const sample = [
      "const a = useQuery({ queryKey: ['x'], queryFn: () => api.call(routes.deploys.sites.list, { params }) });",
      'api.call(routes.localApp.download, { url });',
      '(leaving ? leavingApi : api).call(routes.cloudPlay.stop, {});',
      'handler.call(this, event); api.call(route);',
      'const other = createApiClient({ baseUrl });',
    ].join('\n');
    expect(show(restFindings('x.tsx', sample))).toEqual([
      'x.tsx:1 api.call(routes.deploys.sites.list (routes.deploys.sites.list has the tRPC procedure deploys.sites.list)',
      'x.tsx:3 api).call(routes.cloudPlay.stop (routes.cloudPlay.stop has the tRPC procedure cloudPlay.stop)',
      'x.tsx:4 api.call(route (route: not a row of the route table)',
      'x.tsx:5 createApiClient(',
    ]);
    expect(show(keyFindings('x.tsx', sample))).toEqual(['x.tsx:1 queryKey:']);
    expect(isReactFile('x.ts', 'export function f() { return useState(1); }')).toBe(true);
    expect(isReactFile('x.ts', 'export const f = () => api.call(routes.users.me);')).toBe(false);
  });
});
