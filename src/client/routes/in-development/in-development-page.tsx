import { in_development_text } from '../../../shared/i18n/paraglide/messages/in_development_text.js';
import { in_development_title } from '../../../shared/i18n/paraglide/messages/in_development_title.js';
import { homeCrumb, Page } from '../../components/page.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { in_development_text, in_development_title };

/** Spec §2: 'This page is in development.' */
export function InDevelopment({ title }: { title?: string }) {
  const shownTitle = title ?? m.in_development_title();
  return (
    <Page title={shownTitle} breadcrumb={[homeCrumb(), { label: shownTitle }]} pageClass="page_in_development">
      <h1>{shownTitle}</h1>
      <p className="notice">{m.in_development_text()}</p>
    </Page>
  );
}

/** As a route: no parameters used. */
export default function InDevelopmentPage(_props: { params?: Record<string, string> }) {
  return <InDevelopment />;
}
