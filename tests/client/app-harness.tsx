import { act, cleanup, render } from '@testing-library/react';
import { App } from '../../src/client/app.tsx';
import { setBearerToken } from '../../src/client/lib/api.ts';

/**
 * The whole client at a URL, as the client tests drive it. Import this module only after useDom()
 * (await import('./app-harness.tsx')): testing-library and the client need the DOM when they load.
 */
export function openApp(url: string, token?: string) {
  cleanup();
  history.replaceState(null, '', url);
  if (token) setBearerToken(token);
  return render(<App />);
}

/**
 * Retries a cheap check (plain selectors and values) until it passes. Not testing-library's waitFor: with
 * the server in this process, its polling kept the server's replies from reaching the screen on a busy
 * machine, where plain pauses let them through; and a failing expect on an element formats all of it.
 * The bound only ends the loop of a broken test with the check's own failure: it is far past what a
 * loaded CI machine (two test files and two busy loops on two cores) takes, so tests that use it get
 * test timeouts longer still.
 */
export async function until(check: () => void | Promise<void>, timeout = 60_000): Promise<void> {
  const end = Date.now() + timeout;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > end) throw error;
    }
    await act(() => new Promise<void>((resolve) => setTimeout(resolve, 50)));
  }
}
