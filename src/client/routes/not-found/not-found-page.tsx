import { Link } from 'wouter';
import { not_found_bad_link } from '../../../shared/i18n/paraglide/messages/not_found_bad_link.js';
import { not_found_deleted } from '../../../shared/i18n/paraglide/messages/not_found_deleted.js';
import { not_found_home } from '../../../shared/i18n/paraglide/messages/not_found_home.js';
import { not_found_intro } from '../../../shared/i18n/paraglide/messages/not_found_intro.js';
import { not_found_no_access } from '../../../shared/i18n/paraglide/messages/not_found_no_access.js';
import { not_found_title } from '../../../shared/i18n/paraglide/messages/not_found_title.js';
import { homeCrumb, Page } from '../../components/page.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { not_found_bad_link, not_found_deleted, not_found_home, not_found_intro, not_found_no_access, not_found_title };

/** Spec §2: 'Page not found' with its three causes. */
export default function NotFound() {
  return (
    <Page title={m.not_found_title()} breadcrumb={[homeCrumb(), { label: m.not_found_title() }]} pageClass="page_not_found">
      <h1>{m.not_found_title()}</h1>
      <p>{m.not_found_intro()}</p>
      <ul className="not_found_causes">
        <li>{m.not_found_deleted()}</li>
        <li>{m.not_found_no_access()}</li>
        <li>{m.not_found_bad_link()}</li>
      </ul>
      <p>
        <Link href="/">{m.not_found_home()}</Link>
      </p>
    </Page>
  );
}

