import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { app_skip_to_content } from '../../shared/i18n/paraglide/messages/app_skip_to_content.js';
import { auth_signed_in_as } from '../../shared/i18n/paraglide/messages/auth_signed_in_as.js';
import { footer_community } from '../../shared/i18n/paraglide/messages/footer_community.js';
import { footer_docs } from '../../shared/i18n/paraglide/messages/footer_docs.js';
import { footer_label } from '../../shared/i18n/paraglide/messages/footer_label.js';
import { nav_docs } from '../../shared/i18n/paraglide/messages/nav_docs.js';
import { local_title } from '../../shared/i18n/paraglide/messages/local_title.js';
import { nav_main_label } from '../../shared/i18n/paraglide/messages/nav_main_label.js';
import { nav_profile } from '../../shared/i18n/paraglide/messages/nav_profile.js';
import { nav_projects } from '../../shared/i18n/paraglide/messages/nav_projects.js';
import { nav_register } from '../../shared/i18n/paraglide/messages/nav_register.js';
import { nav_sign_in } from '../../shared/i18n/paraglide/messages/nav_sign_in.js';
import { nav_sign_out } from '../../shared/i18n/paraglide/messages/nav_sign_out.js';
import { nav_store } from '../../shared/i18n/paraglide/messages/nav_store.js';
import { useDialogs } from '../dialogs/dialog-provider.tsx';
import { useInstance } from '../lib/instance.ts';
import { rememberReturnTo } from '../lib/auth/return-to.ts';
import { useAuth } from '../lib/auth/auth.tsx';
import { useLanguage } from '../lib/i18n/index.ts';
import { Logo } from './logo.tsx';
import { LanguageSwitcher, ThemeSwitcher } from './switchers.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { app_skip_to_content, auth_signed_in_as, footer_community, footer_docs, footer_label, local_title, nav_docs, nav_main_label, nav_profile, nav_projects, nav_register, nav_sign_in, nav_sign_out, nav_store };

export function Layout({ children }: { children: ReactNode }) {
  return (
    <div className="layout">
      <a className="skip_link" href="#content">
        {m.app_skip_to_content()}
      </a>
      <Header />
      <div className="layout_content">{children}</div>
      <Footer />
    </div>
  );
}

/** A header link: marked as the current page's section (aria-current) while the location is under it. */
function NavLink({ href, section, children }: { href: string; section: string; children: ReactNode }) {
  const [location] = useLocation();
  const current = location === section || location.startsWith(`${section}/`);
  return (
    <Link href={href} className="nav_link" aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/**
 * The header: logo, main navigation, language and theme with the user's name, the account. A grid of
 * named areas: one row on wide screens, the navigation on a row of its own below 72rem; on a phone the
 * logo and the account share the first row, the navigation the second, the switchers and name the third.
 */
function Header() {
  const auth = useAuth();
  const { appName } = useInstance();
  const { language } = useLanguage();
  const dialogs = useDialogs();
  const [, navigate] = useLocation();
  const signOut = async () => {
    const done = await dialogs.attempt(async () => {
      await auth.signOut();
      return true;
    });
    if (done) navigate('/');
  };
  return (
    <header className="header">
      <Link href="/" className="brand">
        <Logo name={appName} />
      </Link>
      <nav className="header_nav" aria-label={m.nav_main_label()}>
        <ul>
          <li>
            <NavLink href="/store" section="/store">
              {m.nav_store()}
            </NavLink>
          </li>
          {auth.user ? (
            <>
              <li>
                <NavLink href="/projects" section="/projects">
                  {m.nav_projects()}
                </NavLink>
              </li>
              <li>
                <NavLink href="/me" section="/me">
                  {m.nav_profile()}
                </NavLink>
              </li>
            </>
          ) : null}
          <li>
            <NavLink href="/local" section="/local">
              {m.local_title()}
            </NavLink>
          </li>
          <li>
            <NavLink href={`/docs/${encodeURIComponent(language)}/`} section="/docs">
              {m.nav_docs()}
            </NavLink>
          </li>
        </ul>
      </nav>
      <div className="header_tools">
        <LanguageSwitcher />
        <ThemeSwitcher />
        {auth.user ? (
          // The name alone is shown (the sentence is read out, and is its tooltip): whatever the language, a
          // long name cannot push the navigation onto a second row; one too wide for its room ends in '…'.
          <span className="header_user" title={m.auth_signed_in_as({ name: auth.user.title })}>
            <span className="visually_hidden">{m.auth_signed_in_as({ name: auth.user.title })}</span>
            <bdi className="header_user_name" aria-hidden="true">
              {auth.user.title}
            </bdi>
          </span>
        ) : null}
      </div>
      <div className="header_account">
        {auth.user ? (
          <button type="button" className="button button_quiet" onClick={signOut}>
            {m.nav_sign_out()}
          </button>
        ) : auth.status === 'not_authenticated' ? (
          <>
            <Link href="/login" className="button button_quiet" onClick={() => rememberReturnTo()}>
              {m.nav_sign_in()}
            </Link>
            <Link href="/register" className="button button_primary" onClick={() => rememberReturnTo()}>
              {m.nav_register()}
            </Link>
          </>
        ) : null}
      </div>
    </header>
  );
}

function Footer() {
  const { language } = useLanguage();
  const { socialLinks } = useInstance();
  return (
    <footer className="footer">
      <nav className="footer_nav" aria-label={m.footer_label()}>
        <ul>
          <li>
            <Link href={`/docs/${encodeURIComponent(language)}/`}>{m.footer_docs()}</Link>
          </li>
          {socialLinks.length > 0 ? <li className="footer_group">{m.footer_community()}</li> : null}
          {socialLinks.map((link) => (
            <li key={link.name}>
              <a href={link.href} rel="noopener noreferrer" target="_blank">
                {link.name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </footer>
  );
}
