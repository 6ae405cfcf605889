import { describe, expect, test } from 'bun:test';
import { Glob } from 'bun';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * docs/architecture.md is the map: every path it names in backticks must exist. A path is a code span
 * starting at a folder of the repository (src/, cloudhost/, tests/, docs/, …) or ending in a source
 * file's extension; one written from inside a room (`http/body-guard.ts`, `domains/auth/`,
 * `rest-door.ts`) is looked up under the rooms, and `<name>`, `*` and `…` stand for any name.
 * URL paths (`/api/...`), blob keys and environment variables are not paths of the repository.
 */
const root = resolve(import.meta.dir, '../..');
const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

const topFolders = ['src/', 'cloudhost/', 'tests/', 'docs/', 'drizzle/', 'locales/', '.ci/'];
const extensions = /\.(ts|tsx|md|css|json|html|sql)$/;
/** Where a path written from inside a room may start. */
const bases = ['', 'src/', 'src/server/', 'src/server/domains/', 'src/server/domains/auth/', 'src/server/domains/auth/external/', 'src/server/domains/packages/', 'src/server/domains/content-images/', 'src/server/jobs/', 'src/server/config/', 'src/server/commands/', 'src/server/domains/*/', 'src/client/', 'src/client/routes/*/', 'src/helper/', 'cloudhost/src/', 'src/shared/'];

function codeSpans(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
}

function looksLikePath(span: string): boolean {
  if (!/^[\w.@<>*…/-]+$/.test(span) || span.startsWith('/') || span.includes('..') || /^\.\w+$/.test(span)) return false;
  return topFolders.some((folder) => span.startsWith(folder)) || extensions.test(span) || /^[a-z][\w-]*\/([\w.<>*…-]+\/?)*$/.test(span);
}

/** The span as a glob: placeholders match any name; a folder (trailing slash) matches anything in it. */
function globOf(span: string): string {
  const pattern = span.replace(/<[^>]+>|…/g, '*');
  return pattern.endsWith('/') ? `${pattern}**` : pattern;
}

function exists(span: string): boolean {
  const pattern = globOf(span);
  for (const base of bases) {
    const full = base + pattern;
    if (!/[*]/.test(full)) {
      if (existsSync(join(root, full))) return true;
      continue;
    }
    for (const _ of new Glob(full).scanSync({ cwd: root, dot: true, onlyFiles: true })) return true;
  }
  return false;
}

const paths = [...new Set(codeSpans(doc).filter(looksLikePath))];

describe('docs/architecture.md', () => {
  test('the checker finds the paths and can miss one', () => {
    expect(paths).toContain('src/shared/api/routes.ts');
    expect(paths).toContain('http/body-guard.ts');
    expect(paths.some((path) => path.includes('<'))).toBe(true);
    expect(paths).not.toContain('/api/openapi.json');
    expect(exists('src/server/operations/rest-door.ts')).toBe(true);
    expect(exists('rest-door.ts')).toBe(false);
    expect(exists('src/server/operations/no-such-door.ts')).toBe(false);
    expect(exists('domains/<domain>/<x>.service.ts')).toBe(true);
  });

  test('every path it names exists', () => {
    expect(paths.filter((path) => !exists(path))).toEqual([]);
  });

  test('it stays a map: readable in ten minutes', () => {
    expect(doc.split('\n').length).toBeLessThanOrEqual(320);
  });
});
