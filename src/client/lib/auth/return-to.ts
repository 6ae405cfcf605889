/** Spec §2: after signing in the user returns to the page they came from (path plus query). */
const returnToKey = 'returnTo';

export function rememberReturnTo(pathAndQuery: string = location.pathname + location.search): void {
  if (!isSafeReturn(pathAndQuery) || /^\/(login|register)(\/|\?|$)/.test(pathAndQuery)) return;
  try {
    sessionStorage.setItem(returnToKey, pathAndQuery);
  } catch {
    // storage blocked: sign-in returns home
  }
}

/** The stored page without forgetting it; '/' when none. Only same-origin paths are honoured. */
export function peekReturnTo(): string {
  let stored: string | null = null;
  try {
    stored = sessionStorage.getItem(returnToKey);
  } catch {
    // storage blocked
  }
  return stored && isSafeReturn(stored) ? stored : '/';
}

/** The stored page, once. */
export function takeReturnTo(): string {
  const stored = peekReturnTo();
  try {
    sessionStorage.removeItem(returnToKey);
  } catch {
    // storage blocked
  }
  return stored;
}

function isSafeReturn(value: string): boolean {
  return value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\');
}
