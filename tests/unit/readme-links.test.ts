import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** README.md and docs/: links stay inside the repository and work; one archive extension (the CLI's). */
const root = resolve(import.meta.dir, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : [];
  });
}

const files = [join(root, 'README.md'), join(root, 'src/client/README.md'), ...markdownFiles(join(root, 'docs'))];
const read = (path: string) => readFileSync(path, 'utf8');
/** [text](target) outside code spans and fenced blocks. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

describe('links in README.md and docs/', () => {
  test.each(files.map((path) => [relative(root, path), path]))('%s: every relative link names a file of the repository', (_, path) => {
    for (const link of linksOf(read(path))) {
      if (/^[a-z]+:/i.test(link) || link.startsWith('#')) continue;
      const target = link.split('#')[0]!;
      if (target.startsWith('/docs/')) {
        // In-app docs pages: /docs/{lang}/{page} is docs/{lang}/{page}.md, the index when no page.
        const [lang, page] = target.slice('/docs/'.length).split('/');
        expect(existsSync(join(root, 'docs', lang!, `${page || 'index'}.md`))).toBe(true);
        continue;
      }
      if (target.startsWith('/')) {
        // Paths the server answers itself (the OpenAPI document).
        expect(target).toMatch(/^\/api\//);
        continue;
      }
      const resolved = resolve(dirname(path), target);
      expect(relative(root, resolved).startsWith('..')).toBe(false);
      expect(existsSync(resolved)).toBe(true);
    }
  });

  test('no path in them points outside the repository', () => {
    // A quoted path such as `../shared/DESIGN.md` names a file beside the checkout, absent from a clone.
    for (const path of files) expect(read(path)).not.toMatch(/`\.\.\//);
  });
});

describe('README.md', () => {
  test('keeps its first two commands', () => {
    expect(read(join(root, 'README.md'))).toContain(
      '```sh\nnpm install && npm start     # the server on http://localhost:3000 with the embedded database\nnpm test                     # the whole test suite\n```',
    );
  });

  test('archives are .crt everywhere, as the CLI writes them', () => {
    for (const path of [...files, join(root, 'src/cli/commands/download.ts')]) expect(read(path)).not.toMatch(/\.cartridge(-index)?\b(?!\/)/);
    expect(read(join(root, 'src/cli/push-state.ts'))).toContain("'archive.crt'");
  });

  test('first steps start in the browser and point to the in-app docs and the API page', () => {
    const readme = read(join(root, 'README.md'));
    const firstSteps = readme.slice(readme.indexOf('## First steps'), readme.indexOf('\n## ', readme.indexOf('## First steps') + 1));
    expect(firstSteps).toStartWith('## First steps\n1. Open http://localhost:3000');
    expect(firstSteps).toContain('/docs/en/');
    expect(firstSteps).not.toContain('POST /api/auth/password');
    expect(read(join(root, 'docs/en/api.md'))).toContain('POST /api/auth/password');
    // What PORT+1 is for.
    expect(readme).toContain('`PORT+1` (3001, `PLAY_PORT`): the **play origin**');
  });
});
