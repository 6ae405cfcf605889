import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../src/shared/api/errors.ts';
import {
  externalAuthStorageKey,
  finishExternalAuth,
  finishParams,
  leaveForProvider,
  nextAddress,
  readProviderAnswer,
  saveExternalAuth,
  takeExternalAuth,
  type ExternalAuthCalls,
  type StoredExternalAuth,
} from '../../src/client/lib/auth/external-auth.ts';
import type { FinishedExternalAuth } from '../../src/shared/schemas/external-auth.ts';

/** Spec §4 and §5 without a browser: the stored start, code extraction and the finishing decisions. */

class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear() {
    this.items.clear();
  }
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  key(index: number) {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
  setItem(key: string, value: string) {
    this.items.set(key, String(value));
  }
}

const url = (address: string) => new URL(address, 'https://cartridge.example');

function codeOf(error: unknown): string | undefined {
  return error instanceof ApiError ? error.code : undefined;
}

function caught(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('code extraction (spec §5)', () => {
  test.each(['github', 'gitlab', 'twitch', 'discord'])('%s: code and state from the query', (provider) => {
    expect(readProviderAnswer(provider, url('/oauth?code=abc%2B1&state=tok-1'))).toEqual({ code: 'abc+1', state: 'tok-1' });
    // The fragment is not read for these providers.
    expect(readProviderAnswer(provider, url('/oauth#code=abc&state=tok-1'))).toEqual({ code: undefined, state: undefined });
    expect(readProviderAnswer(provider, url('/oauth?error=access_denied&state=tok-1'))).toEqual({ code: undefined, state: 'tok-1' });
    expect(readProviderAnswer(provider, url('/oauth?code=&state='))).toEqual({ code: undefined, state: undefined });
  });

  test('steam: every query parameter as one JSON object for the code, state from the query', () => {
    const answer = readProviderAnswer('steam', url('/oauth?state=tok-2&openid.ns=http%3A%2F%2Fspecs.openid.net%2Fauth%2F2.0&openid.mode=id_res&openid.claimed_id=https%3A%2F%2Fsteamcommunity.com%2Fopenid%2Fid%2F7656'));
    expect(answer.state).toBe('tok-2');
    expect(JSON.parse(answer.code!)).toEqual({
      state: 'tok-2',
      'openid.ns': 'http://specs.openid.net/auth/2.0',
      'openid.mode': 'id_res',
      'openid.claimed_id': 'https://steamcommunity.com/openid/id/7656',
    });
    // Nothing but the state: Steam gave no assertion, so there is no code.
    expect(readProviderAnswer('steam', url('/oauth?state=tok-2'))).toEqual({ code: undefined, state: 'tok-2' });
    expect(readProviderAnswer('steam', url('/oauth?openid.mode=cancel')).state).toBeUndefined();
  });

  test('itch: access_token and state from the fragment, not the query', () => {
    expect(readProviderAnswer('itch', url('/oauth#access_token=itch-secret&state=tok-3'))).toEqual({ code: 'itch-secret', state: 'tok-3' });
    expect(readProviderAnswer('itch', url('/oauth?access_token=itch-secret&state=tok-3'))).toEqual({ code: undefined, state: undefined });
  });

  test('any other provider is unsupported_provider', () => {
    for (const provider of ['facebook', '', 'password', 'GitHub']) expect(codeOf(caught(() => readProviderAnswer(provider, url('/oauth?code=a&state=b'))))).toBe('unsupported_provider');
  });
});

describe('finish parameters (spec §4)', () => {
  const stored: StoredExternalAuth = { token: 'tok-9', returnTo: '/projects/p1', intent: 'login', provider: 'github' };

  test('state equal to the stored token and a code: the finish query', () => {
    expect(finishParams(stored, url('/oauth?code=c0de&state=tok-9'))).toEqual({ token: 'tok-9', code: 'c0de' });
  });

  test.each([
    ['a state that is not the stored token', '/oauth?code=c0de&state=tok-other', 'state_mismatch'],
    ['no state', '/oauth?code=c0de', 'state_mismatch'],
    ['no code', '/oauth?state=tok-9', 'no_code'],
    ['an error instead of a code', '/oauth?error=access_denied&state=tok-9', 'no_code'],
    ['nothing at all', '/oauth', 'state_mismatch'],
  ])('%s: wrong_finish_auth_params, with the reason and the provider (issue 29)', (_, address, reason) => {
    const error = caught(() => finishParams(stored, url(address)));
    expect(codeOf(error)).toBe('wrong_finish_auth_params');
    expect((error as { details?: unknown }).details).toEqual({ reason, provider: 'github' });
  });

  test('nothing stored (another browser, storage cleared, a second visit): wrong_finish_auth_params, reason nothing_stored', () => {
    const error = caught(() => finishParams(undefined, url('/oauth?code=c0de&state=tok-9')));
    expect(codeOf(error)).toBe('wrong_finish_auth_params');
    expect((error as { details?: unknown }).details).toEqual({ reason: 'nothing_stored' });
  });

  test('a stored provider that is unknown: unsupported_provider', () => {
    expect(codeOf(caught(() => finishParams({ ...stored, provider: 'myspace' }, url('/oauth?code=c0de&state=tok-9'))))).toBe('unsupported_provider');
  });
});

describe('stored start', () => {
  test('saved, then taken once: the token does not survive its use', () => {
    const storage = new MemoryStorage();
    saveExternalAuth({ token: 't', returnTo: '/store/p?x=1', intent: 'register', provider: 'itch' }, storage);
    expect(takeExternalAuth(storage)).toEqual({ token: 't', returnTo: '/store/p?x=1', intent: 'register', provider: 'itch' });
    expect(storage.getItem(externalAuthStorageKey)).toBeNull();
    expect(takeExternalAuth(storage)).toBeUndefined();
  });

  test('junk in storage is nothing stored (and is removed)', () => {
    const storage = new MemoryStorage();
    for (const junk of ['not json', '{"token":1}', '[]', 'null']) {
      storage.setItem(externalAuthStorageKey, junk);
      expect(takeExternalAuth(storage)).toBeUndefined();
      expect(storage.getItem(externalAuthStorageKey)).toBeNull();
    }
  });
});

describe('finishing decisions (spec §4)', () => {
  function fakeCalls(finished: Partial<FinishedExternalAuth> & Record<string, unknown>) {
    const log: string[] = [];
    const calls: ExternalAuthCalls = {
      finish: async (query) => {
        log.push(`finish ${query.token} ${query.code}`);
        return { hasUser: false, intent: 'login', token: 'finish-token', ...finished } as FinishedExternalAuth;
      },
      signIn: async (token) => (log.push(`signIn ${token}`), { authToken: 'session' }),
      register: async (token) => (log.push(`register ${token}`), { authToken: 'new-session' }),
      link: async (token) => (log.push(`link ${token}`), { provider: 'github' }),
    };
    return { calls, log };
  }
  const from = (intent: StoredExternalAuth['intent'], returnTo = '') => ({ token: 'tok', returnTo, intent, provider: 'github' });
  const back = url('/oauth?code=the-code&state=tok');

  test('hasUser: signs in whatever the intent, and returns to the stored page', async () => {
    for (const intent of ['login', 'register', 'link'] as const) {
      const { calls, log } = fakeCalls({ hasUser: true, intent });
      const flow = await finishExternalAuth(from(intent, '/projects/p1?tab=2'), back, calls);
      expect(log).toEqual(['finish tok the-code', 'signIn finish-token']);
      expect(flow).toEqual({ outcome: 'login', reply: { authToken: 'session' }, next: '/projects/p1?tab=2' });
    }
  });

  test('no user, intent register: registers; home without a stored page', async () => {
    const { calls, log } = fakeCalls({ hasUser: false, intent: 'register' });
    const flow = await finishExternalAuth(from('register'), back, calls);
    expect(log).toEqual(['finish tok the-code', 'register finish-token']);
    expect(flow.outcome).toBe('register');
    expect(flow.next).toBe('/');
  });

  test('no user, intent link: links the account; /me without a stored page', async () => {
    const { calls, log } = fakeCalls({ hasUser: false, intent: 'link' });
    const flow = await finishExternalAuth(from('link'), back, calls);
    expect(log).toEqual(['finish tok the-code', 'link finish-token']);
    expect(flow).toEqual({ outcome: 'link', reply: { provider: 'github' }, next: '/me' });
  });

  test('no user, intent login: unknown_intent (spec §4: without a user only register and link go on)', async () => {
    const { calls, log } = fakeCalls({ hasUser: false, intent: 'login' });
    expect(codeOf(await finishExternalAuth(from('login'), back, calls).catch((error: unknown) => error))).toBe('unknown_intent');
    expect(log).toEqual(['finish tok the-code']);
  });

  test('an intent the client does not know: unknown_intent, nothing else called', async () => {
    const { calls, log } = fakeCalls({ hasUser: false, intent: 'merge' as never });
    expect(codeOf(await finishExternalAuth(from('login'), back, calls).catch((error: unknown) => error))).toBe('unknown_intent');
    expect(log).toEqual(['finish tok the-code']);
  });

  test('wrong state or missing code: no call at all', async () => {
    for (const address of ['/oauth?code=the-code&state=other', '/oauth?state=tok']) {
      const { calls, log } = fakeCalls({ hasUser: true });
      expect(codeOf(await finishExternalAuth(from('login'), url(address), calls).catch((error: unknown) => error))).toBe('wrong_finish_auth_params');
      expect(log).toEqual([]);
    }
  });

  test('a failing finish call is passed on as it is', async () => {
    const calls: ExternalAuthCalls = {
      finish: async () => {
        throw new ApiError('wrong_auth', 'expired', { status: 401 });
      },
      signIn: async () => undefined,
      register: async () => undefined,
      link: async () => undefined,
    };
    expect(codeOf(await finishExternalAuth(from('login'), back, calls).catch((error: unknown) => error))).toBe('wrong_auth');
  });
});

describe('next address', () => {
  test('the stored same-origin page, else / (login, register) or /me (link)', () => {
    expect(nextAddress('login', '/store/game?ref=1')).toBe('/store/game?ref=1');
    expect(nextAddress('link', '/me')).toBe('/me');
    expect(nextAddress('login', '')).toBe('/');
    expect(nextAddress('register', undefined)).toBe('/');
    expect(nextAddress('link', '')).toBe('/me');
    for (const unsafe of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '/login', '/register?x=1', '/oauth?code=1']) {
      expect(nextAddress('login', unsafe)).toBe('/');
    }
  });
});

describe('leaving for the provider (spec §4 redirect)', () => {
  test('with POST parameters: a hidden form with them in order, submitted; else a navigation', async () => {
    const { Window } = await import('happy-dom');
    const window = new Window({ url: 'https://cartridge.example/login' });
    const doc = window.document as unknown as Document;
    let submitted: HTMLFormElement | undefined;
    (window as unknown as { HTMLFormElement: { prototype: HTMLFormElement } }).HTMLFormElement.prototype.submit = function (this: HTMLFormElement) {
      submitted = this;
    };
    leaveForProvider({ url: 'https://steamcommunity.com/openid/login', token: 't', postParams: [{ name: 'openid.mode', value: 'checkid_setup' }, { name: 'openid.return_to', value: 'https://cartridge.example/oauth?state=t' }] }, doc);
    expect(submitted).toBeDefined();
    expect(submitted!.method.toUpperCase()).toBe('POST');
    expect(submitted!.action).toBe('https://steamcommunity.com/openid/login');
    expect(submitted!.hidden).toBe(true);
    expect([...submitted!.querySelectorAll('input')].map((input) => [input.type, input.name, input.value])).toEqual([
      ['hidden', 'openid.mode', 'checkid_setup'],
      ['hidden', 'openid.return_to', 'https://cartridge.example/oauth?state=t'],
    ]);
    expect(doc.querySelectorAll('script')).toHaveLength(0);

    const assigned: string[] = [];
    const fakeDoc = { defaultView: { location: { assign: (to: string) => assigned.push(to) } } } as unknown as Document;
    leaveForProvider({ url: 'https://github.com/login/oauth/authorize?state=t', token: 't', postParams: [] }, fakeDoc);
    expect(assigned).toEqual(['https://github.com/login/oauth/authorize?state=t']);
    await window.happyDOM.close();
  });
});
