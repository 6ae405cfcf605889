import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { createHeadingIds } from '../../../shared/docs/heading-ids.ts';

/**
 * Documentation markdown → sanitised HTML. The first level-1 heading names the page (its title).
 * Docs come from the instance's own files, but they are sanitised anyway: a self-hosted instance may
 * serve docs edited by anyone with access to the folder.
 *
 * Headings get their ids after sanitising (shared/docs/heading-ids.ts, GitHub's slugs): DOMPurify
 * would drop an id that names a property of `document` (a heading "Images" or "Links"), and ids of
 * h1–h6 clobber nothing on `document`.
 */
export function renderMarkdown(markdown: string): { html: string; title: string | undefined } {
  const title = /^#\s+(.+?)\s*#*\s*$/m.exec(markdown)?.[1];
  const raw = marked.parse(markdown, { async: false, gfm: true });
  // Bound to the current window at call time (a purifier made at import time keeps the window it saw).
  // The leading newline is for happy-dom (component tests), whose parser drops the first element of
  // markup that starts with a tag; browsers ignore it.
  const fragment = DOMPurify(window).sanitize(`\n${raw}`, { USE_PROFILES: { html: true }, FORBID_ATTR: ['style'], RETURN_DOM_FRAGMENT: true });
  const nextId = createHeadingIds();
  for (const heading of fragment.querySelectorAll('h1, h2, h3, h4, h5, h6')) heading.id = nextId(heading.textContent ?? '');
  const container = document.createElement('div');
  container.append(fragment);
  return { html: container.innerHTML.trim(), title };
}
