/**
 * The route table is the only place a method and path are written (issue 30): every row is served by
 * the REST app at its method and path and, unless its hand-written door has none, by a tRPC procedure of
 * its name; the app serves nothing under /api that is not a row, and tRPC nothing that is not one.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { routes } from '../../src/shared/api/routes.ts';
import { createApp } from '../../src/server/app.ts';
import { isHandwritten } from '../../src/server/operations/binding.ts';
import { operationList } from '../../src/server/operations/operations.ts';
import { appRouter } from '../../src/server/trpc/router.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

type Row = { method: string; path: string };
function rowsOf(tree: object, prefix = ''): Map<string, Row> {
  const found = new Map<string, Row>();
  for (const [key, node] of Object.entries(tree)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if ('method' in node && 'path' in node) found.set(name, node as Row);
    else for (const [inner, row] of rowsOf(node, name)) found.set(inner, row);
  }
  return found;
}

/** The API's own description, not an operation. */
const notOperations = new Set(['GET /api/openapi.json']);

describe('both doors come from the route table', () => {
  test('every row is served at its method and path under /api; nothing else is served there', () => {
    const served = new Set(createApp(server.deps).routes.map((route) => `${route.method} ${route.path}`));
    const rows = [...rowsOf(routes).values()].map((row) => `${row.method.toUpperCase()} /api${row.path}`);
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.filter((row) => !served.has(row))).toEqual([]);
    // A browser's preflight of a row's path is part of that row.
    const rowPaths = new Set(rows.map((row) => row.split(' ')[1]));
    const preflight = (route: string) => route.startsWith('OPTIONS ') && rowPaths.has(route.split(' ')[1]);
    const apiServed = [...served].filter((route) => route.split(' ')[1]!.startsWith('/api/') && !notOperations.has(route) && !preflight(route));
    expect(apiServed.filter((route) => !rows.includes(route)).sort()).toEqual([]);
  });

  test('every operation with a tRPC door is a procedure of its name; the router has no other', () => {
    const withProcedure = operationList()
      .filter((operation) => !isHandwritten(operation.binding) || operation.binding.procedure !== undefined)
      .map((operation) => operation.name);
    const procedures = Object.keys(appRouter._def.procedures);
    expect(withProcedure.length).toBeGreaterThan(50);
    expect(procedures.sort()).toEqual(withProcedure.sort());
    for (const name of procedures) {
      const row = rowsOf(routes).get(name)!;
      const procedure = (appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)[name]!;
      expect(`${name}: ${procedure._def.type}`).toBe(`${name}: ${row.method === 'get' || (row as { read?: boolean }).read ? 'query' : 'mutation'}`);
    }
  });

  test('each hand-written door says why', () => {
    const handwritten = operationList().filter((operation) => isHandwritten(operation.binding));
    expect(handwritten.length).toBeGreaterThan(0);
    for (const operation of handwritten) expect((operation.binding as { handwritten: string }).handwritten.length).toBeGreaterThan(10);
  });
});
