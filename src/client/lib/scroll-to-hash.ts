import { useEffect } from 'react';
import { useLocationProperty } from 'wouter/use-browser-location';

/** The element a fragment (`#id`) names; ids of non-Latin headings arrive percent-encoded. */
function hashTarget(hash: string): HTMLElement | null {
  if (hash.length < 2) return null;
  let id = hash.slice(1);
  try {
    id = decodeURIComponent(id);
  } catch {
    // A malformed escape: look the id up as it is written.
  }
  return document.getElementById(id);
}

const currentHash = () => location.hash;

/**
 * Scrolls to the element the address's fragment names once `content` is on screen, and again
 * whenever the fragment changes (the browser's own jump happens before a page's content has loaded,
 * and not at all after an in-app navigation, which is a history.pushState).
 */
export function useScrollToHash(content: unknown): void {
  const hash = useLocationProperty(currentHash, () => '');
  useEffect(() => {
    if (content === undefined || content === null) return;
    hashTarget(hash)?.scrollIntoView();
  }, [content, hash]);
}
