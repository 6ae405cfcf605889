import { useEffect, useMemo, type MouseEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { docs_fallback_notice } from '../../../shared/i18n/paraglide/messages/docs_fallback_notice.js';
import { docs_other_languages } from '../../../shared/i18n/paraglide/messages/docs_other_languages.js';
import { docs_title } from '../../../shared/i18n/paraglide/messages/docs_title.js';
import { homeCrumb, Page } from '../../components/page.tsx';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import { subscribeLanguage, useLanguage } from '../../lib/i18n/index.ts';
import { useScrollToHash } from '../../lib/scroll-to-hash.ts';
import { trpc } from '../../lib/trpc.ts';
import NotFound from '../not-found/not-found-page.tsx';
import type { ViewProps } from '../routes.ts';
import { renderMarkdown } from './markdown.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { docs_fallback_notice, docs_other_languages, docs_title };

/** /docs/{lang}/{page}: the page in that language, or English with a notice when it has no translation. */
export default function DocsPage({ params }: ViewProps) {
  const { languages } = useLanguage();
  const [, navigate] = useLocation();
  const lang = params.lang ?? 'en';
  const page = params.page ?? 'index';
  // Switching the interface language on a docs page shows the page in that language (or English with
  // the notice): the language is part of the address, so the address follows.
  useEffect(
    () => subscribeLanguage((next) => navigate(`/docs/${encodeURIComponent(next)}/${page === 'index' ? '' : encodeURIComponent(page)}`, { replace: true })),
    [navigate, page],
  );
  const docs = trpc.docs.page.useQuery(
    { lang, page },
    {
      // The server's refusal (a page that does not exist) is asked once; no answer or a 5xx once more.
      retry: (count, error) => {
        const { status } = toDisplayError(error);
        return !(status !== undefined && status > 0 && status < 500) && count < 1;
      },
    },
  );
  const markdown = docs.data?.markdown;
  const html = useMemo(() => (markdown === undefined ? undefined : renderMarkdown(markdown)), [markdown]);
  // Section links (`/docs/en/scale-out#jobs`): the heading once the page's markdown is on screen.
  useScrollToHash(html);
  if (docs.error && toDisplayError(docs.error).code === 'not_found') return <NotFound />;
  const heading = html?.title ?? m.docs_title();
  const crumbs = [homeCrumb(), { label: m.docs_title(), href: `/docs/${encodeURIComponent(lang)}/` }, ...(page === 'index' ? [] : [{ label: heading }])];
  return (
    <Page title={heading} breadcrumb={crumbs} pageClass="page_docs">
      {docs.isPending ? <LoadingState /> : null}
      {docs.error ? <ErrorState error={docs.error} onRetry={() => void docs.refetch()} /> : null}
      {docs.data && docs.data.lang !== docs.data.requestedLang ? (
        <p className="notice notice_info" role="note">
          {m.docs_fallback_notice()}
        </p>
      ) : null}
      {html ? <article className="markdown" lang={docs.data?.lang} dir={languages.find((info) => info.code === docs.data?.lang)?.dir ?? 'ltr'} onClick={(event) => followInternalLink(event, navigate)} dangerouslySetInnerHTML={{ __html: html.html }} /> : null}
      {docs.data && docs.data.available.length > 1 ? (
        <nav className="docs_languages" aria-label={m.docs_other_languages()}>
          <span>{m.docs_other_languages()}</span>{' '}
          {docs.data.available.map((code) => (
            <Link key={code} href={`/docs/${encodeURIComponent(code)}/${page === 'index' ? '' : encodeURIComponent(page)}`} lang={code} hrefLang={code}>
              {languages.find((info) => info.code === code)?.languageName ?? code}
            </Link>
          ))}
        </nav>
      ) : null}
    </Page>
  );
}

/**
 * Links between docs pages stay in the single-page app instead of reloading it; links to what the
 * server answers itself (the API, such as /api/openapi.json, and /health) are followed as they are.
 */
function followInternalLink(event: MouseEvent<HTMLElement>, navigate: (to: string) => void): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element).closest?.('a');
  if (!anchor || anchor.target || !anchor.href) return;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin || /^\/(api|trpc)(\/|$)|^\/health$/.test(url.pathname)) return;
  // A section of this page: the browser's own jump (it scrolls, sets the address and fires hashchange).
  if (url.hash && url.pathname === location.pathname && url.search === location.search) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
}
