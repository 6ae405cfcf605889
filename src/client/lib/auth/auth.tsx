import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import type { Session } from '../../../shared/schemas/auth.ts';
import { visitorSession } from '../../../shared/visitor-session.ts';
import { setBearerToken } from '../api.ts';
import { trpc } from '../trpc.ts';

/** Spec §4 auth status. */
type AuthStatus = 'processing' | 'authenticated' | 'not_authenticated' | 'error';
export type UserInfo = NonNullable<Session['userInfo']>;

export type PasswordInput = { name: string; password: string; intent: 'login' | 'register'; title?: string };

export type Auth = {
  status: AuthStatus;
  session: Session | undefined;
  user: UserInfo | undefined;
  /** The instance requires signing in for everything (session.authRequired). */
  authRequired: boolean;
  error: unknown;
  retry: () => void;
  signInWithPassword: (input: PasswordInput) => Promise<Session>;
  /** Ends the session on the server (auth.clear) and forgets everything cached for the user. */
  signOut: () => Promise<void>;
  /** Applies a changed title at once (rename), without waiting for a refetch. */
  updateUser: (user: UserInfo) => void;
  /** Forgets the session locally (after the account was deleted). */
  forget: () => void;
  /**
   * Fetches the session again (spec §4, after an external sign-in or a link) and forgets everything
   * cached for the previous identity. `signedIn`, the session a sign-in call answered, is the bearer
   * the refetch carries (the server set its cookie too).
   */
  refreshSession: (signedIn?: Session | null) => Promise<Session>;
};

const AuthContext = createContext<Auth | null>(null);

function visitorOf(session: Session | undefined): Session {
  return visitorSession(session?.authRequired ?? false);
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const utils = trpc.useUtils();
  const sessionQuery = trpc.auth.session.useQuery(undefined, { staleTime: Infinity, retry: 1, refetchOnWindowFocus: false, refetchOnReconnect: false });
  const passwordMutation = trpc.auth.password.useMutation();
  const clearMutation = trpc.auth.clear.useMutation();
  const session = sessionQuery.data;
  // Set during render, before any child query effect runs, so every call after this carries the token.
  // Until the session is known the token stays as it is (none in a browser; the cookie identifies it).
  if (session) setBearerToken(session.authToken);

  const replaceSession = useCallback(
    (next: Session) => {
      setBearerToken(next.authToken);
      // Everything cached belonged to the previous identity.
      queryClient.removeQueries({ predicate: (query) => !isSessionQuery(query.queryKey) });
      utils.auth.session.setData(undefined, next);
    },
    [queryClient, utils],
  );

  const signInWithPassword = useCallback(
    async (input: PasswordInput) => {
      const next = await passwordMutation.mutateAsync(input);
      replaceSession(next);
      return next;
    },
    [passwordMutation.mutateAsync, replaceSession],
  );

  const forget = useCallback(() => replaceSession(visitorOf(utils.auth.session.getData())), [replaceSession, utils]);

  const refreshSession = useCallback(
    async (signedIn?: Session | null) => {
      if (signedIn?.authToken) setBearerToken(signedIn.authToken);
      const next = await utils.auth.session.fetch(undefined, { staleTime: 0 });
      replaceSession(next);
      return next;
    },
    [replaceSession, utils],
  );

  const signOut = useCallback(async () => {
    try {
      await clearMutation.mutateAsync();
    } catch (error) {
      // A session that is already gone is signed out anyway.
      const code = (error as { data?: { code?: unknown } }).data?.code;
      if (code !== 'unauthorized' && code !== 'wrong_auth') throw error;
    }
    forget();
  }, [clearMutation.mutateAsync, forget]);

  const updateUser = useCallback(
    (user: UserInfo) => {
      const current = utils.auth.session.getData();
      if (current?.userInfo) utils.auth.session.setData(undefined, { ...current, userInfo: user });
    },
    [utils],
  );

  const value = useMemo<Auth>(() => {
    const status: AuthStatus = session ? (session.userInfo ? 'authenticated' : 'not_authenticated') : sessionQuery.isError ? 'error' : 'processing';
    return {
      status,
      session,
      user: session?.userInfo ?? undefined,
      authRequired: session?.authRequired ?? false,
      error: sessionQuery.error,
      retry: () => void sessionQuery.refetch(),
      signInWithPassword,
      signOut,
      updateUser,
      forget,
      refreshSession,
    };
  }, [session, sessionQuery.isError, sessionQuery.error, sessionQuery.refetch, signInWithPassword, signOut, updateUser, forget, refreshSession]);

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

function isSessionQuery(key: readonly unknown[]): boolean {
  const path = key[0];
  return Array.isArray(path) && path[0] === 'auth' && path[1] === 'session';
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}
