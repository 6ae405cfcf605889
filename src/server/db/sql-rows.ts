import { sql, type SQL } from 'drizzle-orm';

/** The rows of an `execute` result: postgres.js answers a list of rows, PGlite an object holding them. */
export function rowsOfResult<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : ((result as { rows?: unknown[] }).rows ?? [])) as T[];
}

const plain = /^[0-9A-Za-z_-]*$/;

/**
 * A PostgreSQL array literal ('{a,b,c}') passed as one text parameter: the drivers' own array
 * serialisation escapes element by element, which costs more than the statement for a GiB's 16,000
 * hashes. Elements here are numbers and hex ids; anything else is quoted.
 */
function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((value) => {
    const text = String(value);
    return plain.test(text) && text !== '' ? text : `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}

/**
 * Many rows as one relation from one array parameter per column: `unnest($1::text[], $2::integer[]) as
 * alias(a, b)`. A statement over thousands of chunks then costs one round trip and a few parameters,
 * where a VALUES list would cost thousands of them (and drizzle's time to build it).
 */
export function unnestRows(alias: string, columns: readonly (readonly [name: string, type: string, values: readonly unknown[]])[]): SQL {
  const arrays = sql.join(
    columns.map(([, type, values]) => sql`${arrayLiteral(values)}::${sql.raw(type)}[]`),
    sql`, `,
  );
  return sql`unnest(${arrays}) as ${sql.raw(alias)}(${sql.raw(columns.map(([name]) => `"${name}"`).join(', '))})`;
}
