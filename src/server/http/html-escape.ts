/**
 * Text into HTML the server writes itself (the page head of the app shell, issue 21). Every value that
 * came from a user goes through one of these (JSON-LD through shared/store/page-meta.ts jsonLdText);
 * nothing else is concatenated into markup.
 */

const textEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Element text (`<title>`): & < > escaped, quotes too so the same text is safe in either place. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => textEntities[char]!);
}

/**
 * A double-quoted attribute value: the same escaping (", ', &, <, >).
 * @alias escapeHtml
 */
export const escapeAttribute = escapeHtml;
