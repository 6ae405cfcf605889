import { useMemo } from 'react';
import { Link } from 'wouter';
import { app_tagline } from '../../../shared/i18n/paraglide/messages/app_tagline.js';
import { home_description } from '../../../shared/i18n/paraglide/messages/home_description.js';
import { home_heading } from '../../../shared/i18n/paraglide/messages/home_heading.js';
import { home_profile_hint } from '../../../shared/i18n/paraglide/messages/home_profile_hint.js';
import { home_profile_link } from '../../../shared/i18n/paraglide/messages/home_profile_link.js';
import { home_projects_hint } from '../../../shared/i18n/paraglide/messages/home_projects_hint.js';
import { home_projects_link } from '../../../shared/i18n/paraglide/messages/home_projects_link.js';
import { home_register } from '../../../shared/i18n/paraglide/messages/home_register.js';
import { home_sign_in } from '../../../shared/i18n/paraglide/messages/home_sign_in.js';
import { home_store_hint } from '../../../shared/i18n/paraglide/messages/home_store_hint.js';
import { home_store_link } from '../../../shared/i18n/paraglide/messages/home_store_link.js';
import { home_title } from '../../../shared/i18n/paraglide/messages/home_title.js';
import { home_visitor_call } from '../../../shared/i18n/paraglide/messages/home_visitor_call.js';
import { home_welcome } from '../../../shared/i18n/paraglide/messages/home_welcome.js';
import { Page, usePageMetaContext } from '../../components/page.tsx';
import { simplePageMeta } from '../../../shared/store/page-meta.ts';
import { rememberReturnTo } from '../../lib/auth/return-to.ts';
import { useAuth } from '../../lib/auth/auth.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { app_tagline, home_description, home_heading, home_profile_hint, home_profile_link, home_projects_hint, home_projects_link, home_register, home_sign_in, home_store_hint, home_store_link, home_title, home_visitor_call, home_welcome };

/** Spec §2 home: links to projects and profile when signed in; the description and sign-in links otherwise. */
export default function HomePage() {
  const auth = useAuth();
  // The head the server writes for '/' (issue 21), kept when the app comes back here.
  const metaContext = usePageMetaContext();
  const meta = useMemo(() => simplePageMeta('/', m.home_title(), m.home_description(), metaContext), [metaContext]);
  return (
    <Page title={m.home_title()} meta={meta} breadcrumb={[]} pageClass="page_home">
      {auth.user ? (
        <>
          <h1>{m.home_welcome({ name: auth.user.title })}</h1>
          <p className="lead">{m.app_tagline()}</p>
          <ul className="card_list">
            <li className="card">
              <Link href="/projects" className="card_link">
                {m.home_projects_link()}
              </Link>
              <p>{m.home_projects_hint()}</p>
            </li>
            <li className="card">
              <Link href="/me" className="card_link">
                {m.home_profile_link()}
              </Link>
              <p>{m.home_profile_hint()}</p>
            </li>
            <StoreCard />
          </ul>
        </>
      ) : (
        <>
          <h1>{m.home_heading()}</h1>
          <p className="lead">{m.home_description()}</p>
          <p>{m.home_visitor_call()}</p>
          <div className="actions">
            <Link href="/login" className="button button_primary" onClick={() => rememberReturnTo('/')}>
              {m.home_sign_in()}
            </Link>
            <Link href="/register" className="button" onClick={() => rememberReturnTo('/')}>
              {m.home_register()}
            </Link>
          </div>
          <ul className="card_list">
            <StoreCard />
          </ul>
        </>
      )}
    </Page>
  );
}

/** The store index (issue 19), for visitors and members alike. */
function StoreCard() {
  return (
    <li className="card">
      <Link href="/store" className="card_link">
        {m.home_store_link()}
      </Link>
      <p>{m.home_store_hint()}</p>
    </li>
  );
}
