import { useDom } from './setup.ts';
import { describe, expect, test } from 'bun:test';

useDom();
const { renderUserMarkdown } = await import('../../src/client/components/markdown-view.tsx');
const { roleLabel } = await import('../../src/client/routes/projects/role-label.ts');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

function parse(html: string): HTMLElement {
  const root = document.createElement('div');
  root.innerHTML = html;
  return root;
}

// Sanitising, link and image attributes are checked in Chromium (tests/e2e/project-overview.test.ts):
// DOMPurify does not walk happy-dom's DOM, so here it would test happy-dom, not the renderer.
describe('renderUserMarkdown', () => {
  test('headings move down by the offset, capped at h6', () => {
    const root = parse(renderUserMarkdown('# One\n\n###### Six', { headingOffset: 2 }));
    expect(root.querySelector('h3')?.textContent).toBe('One');
    expect(root.querySelectorAll('h6')).toHaveLength(1);
    expect(root.querySelector('h1')).toBeNull();
  });
});

test('roleLabel: the owner flag outranks the role; every role is named', () => {
  setLanguage('en');
  expect(roleLabel('admin', true)).toBe('Owner');
  expect(roleLabel('admin', false)).toBe('Admin');
  expect(roleLabel('developer', false)).toBe('Developer');
  expect(roleLabel('tester', false)).toBe('Tester');
  expect(roleLabel('starred', false)).toBe('Starred');
});
