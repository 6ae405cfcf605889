import { useEffect } from 'react';
import { useLocation } from 'wouter';
import { me_deploy_empty } from '../../paraglide/messages/me_deploy_empty.js';
import { me_deploy_heading } from '../../paraglide/messages/me_deploy_heading.js';
import { me_title } from '../../paraglide/messages/me_title.js';
import { homeCrumb, Page } from '../../components/page.tsx';
import { EmptyState, LoadingState } from '../../components/states.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { rememberReturnTo } from '../../lib/auth/return-to.ts';
import { CredentialsSection } from './credentials-section.tsx';
import { DeleteAccountSection } from './delete-account-section.tsx';
import { ProfileSection } from './profile-section.tsx';
import { SessionsSection } from './sessions-section.tsx';
import { TokensSection } from './tokens-section.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { me_deploy_empty, me_deploy_heading, me_title };

/** Spec §2 'me': profile, linked credentials, sessions, API tokens, deploy credentials, delete account. */
export default function MePage() {
  const auth = useAuth();
  const [, navigate] = useLocation();
  const signedIn = auth.status === 'authenticated';
  useEffect(() => {
    if (auth.status === 'not_authenticated') {
      rememberReturnTo();
      navigate('/login', { replace: true });
    }
  }, [auth.status, navigate]);

  return (
    <Page title={m.me_title()} breadcrumb={[homeCrumb(), { label: m.me_title() }]} pageClass="page_me">
      <h1>{m.me_title()}</h1>
      {signedIn ? (
        <>
          <ProfileSection />
          <CredentialsSection />
          <SessionsSection />
          <TokensSection />
          <section className="section" aria-labelledby="me-deploy">
            <h2 id="me-deploy">{m.me_deploy_heading()}</h2>
            <EmptyState>{m.me_deploy_empty()}</EmptyState>
          </section>
          <DeleteAccountSection />
        </>
      ) : (
        <LoadingState />
      )}
    </Page>
  );
}
