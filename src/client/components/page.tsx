import { useEffect, type ReactNode } from 'react';
import { Link } from 'wouter';
import { breadcrumb_label } from '../paraglide/messages/breadcrumb_label.js';
import { nav_home } from '../paraglide/messages/nav_home.js';
import { useInstance } from '../lib/instance.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { breadcrumb_label, nav_home };

export type Crumb = { label: string; href?: string };

/** Spec §2: page title '{title} - {app name}' (APP_NAME, 'Cartridge' by default). */
export function pageTitle(title: string, appName: string): string {
  return `${title} - ${appName}`;
}

export function useDocumentTitle(title: string): void {
  const { appName } = useInstance();
  useEffect(() => {
    document.title = pageTitle(title, appName);
  }, [title, appName]);
}

/**
 * Every screen's root: sets the document title, shows the breadcrumb (it follows the page direction:
 * a flex row with logical spacing, separators flipped in RTL) and carries the page style class.
 */
export function Page({ title, breadcrumb, pageClass, children }: { title: string; breadcrumb: Crumb[]; pageClass: string; children: ReactNode }) {
  useDocumentTitle(title);
  return (
    <main id="content" className={`page ${pageClass}`} tabIndex={-1}>
      <Breadcrumb items={breadcrumb} />
      {children}
    </main>
  );
}

export function Breadcrumb({ items }: { items: Crumb[] }) {
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
