import { detectLanguage } from '../../shared/i18n/detect.ts';
import { findLanguage, getLanguageInfo, languageCodes, type LanguageCode, type TextDirection } from '../../shared/i18n/languages.ts';

/**
 * The language a page of the web client is served in (its `<html lang dir>` and the words the server
 * writes into its head, issue 21), by the client's own rule (shared/i18n/detect.ts): the
 * address's `?lang=` when it names one of ours, else the browser's languages (Accept-Language, the
 * server's view of navigator.languages), else en. `inUrl`: the address named it (its canonical URL
 * keeps `?lang=`).
 */
export type PageLanguage = { code: LanguageCode; dir: TextDirection; inUrl: boolean };

export { languageCodes as pageLanguages };

/** Accept-Language's tags, most preferred first (q=0 dropped; at most 20 looked at). */
export function acceptedLanguages(header: string | null): string[] {
  if (!header) return [];
  const tags: { tag: string; q: number; index: number }[] = [];
  for (const [index, part] of header.slice(0, 1024).split(',').slice(0, 20).entries()) {
    const [tag = '', ...parameters] = part.split(';').map((item) => item.trim());
    if (!/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) continue;
    const q = parameters.find((parameter) => /^q=/i.test(parameter));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(weight) && weight > 0) tags.push({ tag, q: weight, index });
  }
  return tags.sort((a, b) => b.q - a.q || a.index - b.index).map((item) => item.tag);
}

/** The language of each Accept-Language header seen lately (browsers send a few distinct ones, each often). */
const byHeader = new Map<string, LanguageCode>();

function browserLanguageOf(acceptLanguage: string | null): LanguageCode {
  if (!acceptLanguage) return detectLanguage({});
  if (acceptLanguage.length > 200) return detectLanguage({ browserLanguages: acceptedLanguages(acceptLanguage) });
  let code = byHeader.get(acceptLanguage);
  if (code === undefined) {
    code = detectLanguage({ browserLanguages: acceptedLanguages(acceptLanguage) });
    if (byHeader.size >= 256) byHeader.clear();
    byHeader.set(acceptLanguage, code);
  }
  return code;
}

export function pageLanguageOf(url: URL, acceptLanguage: string | null): PageLanguage {
  const requested = url.search ? url.searchParams.get('lang') : null;
  const named = requested ? findLanguage(requested) : undefined;
  const code = named?.code ?? browserLanguageOf(acceptLanguage);
  return { code, dir: getLanguageInfo(code).dir, inUrl: named !== undefined };
}
