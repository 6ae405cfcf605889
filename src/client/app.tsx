import { useEffect, useState } from 'react';

type SessionView = { userInfo: { title: string } | null };

/** Shell of the web client: the full client (routing, languages, themes, screens) plugs in here. */
export function App() {
  const [session, setSession] = useState<SessionView | 'loading' | 'error'>('loading');
  useEffect(() => {
    fetch('/api/auth/session', { credentials: 'same-origin' })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(String(response.status)))))
      .then((body: SessionView) => setSession(body))
      .catch(() => setSession('error'));
  }, []);
  return (
    <main>
      <h1>Cartridge</h1>
      <p>Host, publish and play your games.</p>
      {session === 'loading' ? <p>Loading…</p> : null}
      {session === 'error' ? <p role="alert">Error</p> : null}
      {typeof session === 'object' && session.userInfo ? <p>Signed in as {session.userInfo.title}</p> : null}
      {typeof session === 'object' && !session.userInfo ? <p>Not signed in</p> : null}
    </main>
  );
}
