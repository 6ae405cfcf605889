import { useEffect } from 'react';
import { useLocation } from 'wouter';
import { me_title } from '../../../shared/i18n/paraglide/messages/me_title.js';
import { homeCrumb, Page } from '../../components/page.tsx';
import { LoadingState } from '../../components/states.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { rememberReturnTo } from '../../lib/auth/return-to.ts';
import { CredentialsSection } from './credentials-section.tsx';
import { DeployCredentialsSection } from './deploy-credentials-section.tsx';
import { DeleteAccountSection } from './delete-account-section.tsx';
import { ProfileSection } from './profile-section.tsx';
import { SessionsSection } from './sessions-section.tsx';
import { TokensSection } from './tokens-section.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { me_title };

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
          <DeployCredentialsSection />
          <DeleteAccountSection />
        </>
      ) : (
        <LoadingState />
      )}
    </Page>
  );
}
