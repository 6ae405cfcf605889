import DOMPurify from 'dompurify';
import { marked } from 'marked';

/**
 * Documentation markdown → sanitised HTML. The first level-1 heading names the page (its title).
 * Docs come from the instance's own files, but they are sanitised anyway: a self-hosted instance may
 * serve docs edited by anyone with access to the folder.
 */
export function renderMarkdown(markdown: string): { html: string; title: string | undefined } {
  const title = /^#\s+(.+?)\s*#*\s*$/m.exec(markdown)?.[1];
  const raw = marked.parse(markdown, { async: false, gfm: true });
  // Bound to the current window at call time (a purifier made at import time keeps the window it saw).
  // The leading newline is for happy-dom (component tests), whose parser drops the first element of
  // markup that starts with a tag; browsers ignore it.
  const html = DOMPurify(window).sanitize(`\n${raw}`, { USE_PROFILES: { html: true }, FORBID_ATTR: ['style'] }).trim();
  return { html, title };
}
