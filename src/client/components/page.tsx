import { useEffect, useMemo, type ReactNode } from 'react';
import { Link } from 'wouter';
import { breadcrumb_label } from '../../shared/i18n/paraglide/messages/breadcrumb_label.js';
import { nav_home } from '../../shared/i18n/paraglide/messages/nav_home.js';
import { findLanguage, getLanguage, languageCodes, requestedLanguage } from '../lib/i18n/index.ts';
import { useInstance } from '../lib/instance.ts';
import { applyPageMeta, META_LOADING, type ScreenMeta } from '../lib/page-meta.ts';
import { documentTitle, type PageMeta, type PageMetaContext } from '../../shared/store/page-meta.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { breadcrumb_label, nav_home };

export type Crumb = { label: string; href?: string };

/** Spec §2: page title '{title} - {app name}' (APP_NAME, 'Cartridge' by default). */
function pageTitle(title: string, appName: string): string {
  return documentTitle(title, appName);
}

function useDocumentTitle(title: string, meta?: ScreenMeta): void {
  const { appName } = useInstance();
  // Compared by content: a screen re-rendering with the same meta leaves the head alone.
  const metaKey = typeof meta === 'object' ? JSON.stringify(meta) : '';
  const loading = meta === META_LOADING;
  useEffect(() => {
    applyPageMeta(pageTitle(title, appName), metaKey ? (JSON.parse(metaKey) as PageMeta) : loading ? META_LOADING : undefined);
  }, [title, appName, metaKey, loading]);
}

/**
 * What a public screen needs to build its meta (shared/store/page-meta.ts) as the server does: this
 * origin, the app's name, the language on screen and whether the address names it (`?lang=`).
 */
export function usePageMetaContext(): PageMetaContext {
  const { appName } = useInstance();
  const language = getLanguage();
  const requested = requestedLanguage();
  const languageInUrl = requested !== null && findLanguage(requested)?.code === language;
  return useMemo(
    () => ({ baseUrl: typeof location === 'undefined' ? '' : location.origin, appName, language, languageInUrl, languages: languageCodes }),
    [appName, language, languageInUrl],
  );
}

/**
 * Every screen's root: sets the document title (and the page meta of public screens: `meta`, issue 21;
 * without it the previous screen's goes; META_LOADING while its data loads keeps the server's), shows
 * the breadcrumb (it follows the page direction: a flex row with logical spacing, separators flipped in
 * RTL) and carries the page style class.
 */
export function Page({ title, meta, breadcrumb, pageClass, children }: { title: string; meta?: ScreenMeta; breadcrumb: Crumb[]; pageClass: string; children: ReactNode }) {
  useDocumentTitle(title, meta);
  return (
    <main id="content" className={`page ${pageClass}`} tabIndex={-1}>
      <Breadcrumb items={breadcrumb} />
      {children}
    </main>
  );
}

function Breadcrumb({ items }: { items: Crumb[] }) {
  if (items.length === 0) return null;
  return (
    <nav className="breadcrumb" aria-label={m.breadcrumb_label()}>
      <ol>
        {items.map((item, index) => {
          const isLast = index === items.length - 1;
          return (
            <li key={`${index}-${item.label}`}>
              {/* Labels are titles people typed ('1.0.1 Linux'): isolated, they keep their own order in either direction. */}
              {item.href && !isLast ? (
                <Link href={item.href}>
                  <bdi>{item.label}</bdi>
                </Link>
              ) : (
                <bdi aria-current={isLast ? 'page' : undefined}>{item.label}</bdi>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

/** The first crumb of every trail. */
export function homeCrumb(): Crumb {
  return { label: m.nav_home(), href: '/' };
}
