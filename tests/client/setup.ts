/**
 * happy-dom for component tests. Import it first in each client test file, call useDom(), and load
 * everything that touches the DOM with a dynamic import after it:
 *
 *   import { useDom } from './setup.ts';
 *   useDom();
 *   const { render } = await import('@testing-library/react');
 *   const { App } = await import('../../src/client/app.tsx');
 *
 * Why dynamic: Bun evaluates CommonJS dependencies (react-dom, @testing-library/*) while linking,
 * before the body of any ES module, so a static import would load react-dom before the DOM exists
 * and React would fall back to its old-IE input polyfill (onChange never fires).
 *
 * happy-dom's GlobalRegistrator replaces fetch, Request, Response, Headers, streams, AbortController,
 * URL, Blob, FormData, TextEncoder... with its own; an in-process Bun server then fails ("Expected a
 * Response object") and Bun's fetch rejects happy-dom's AbortSignal. Bun's versions are saved before
 * registering and put back after. `bun test` runs every file in one process with shared globals, so
 * useDom() attaches the DOM for the file's duration only and detaches it afterwards (API tests that
 * run later must not see a `window`). Not a global preload, for the same reason.
 */
import { GlobalRegistrator } from '@happy-dom/global-registrator';
import { afterAll, afterEach, beforeAll, beforeEach } from 'bun:test';

const bunGlobals = [
  'fetch',
  'Request',
  'Response',
  'Headers',
  'ReadableStream',
  'ReadableStreamDefaultReader',
  'WritableStream',
  'TransformStream',
  'TextEncoderStream',
  'TextDecoderStream',
  'CompressionStream',
  'DecompressionStream',
  'AbortController',
  'AbortSignal',
  'URL',
  'URLSearchParams',
  'Blob',
  'File',
  'FormData',
  'TextEncoder',
  'TextDecoder',
  'WebSocket',
  'EventSource',
  'crypto',
  'performance',
  'structuredClone',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'queueMicrotask',
] as const;

type Descriptors = Map<PropertyKey, PropertyDescriptor | undefined>;

/** What registering changed on globalThis: the DOM's descriptors, and what was there before. */
let registration: { dom: Descriptors; previous: Descriptors } | undefined;
let installed = false;

function globalDescriptors(): Descriptors {
  const keys = [...Object.getOwnPropertyNames(globalThis), ...Object.getOwnPropertySymbols(globalThis)];
  return new Map(keys.map((key) => [key, Object.getOwnPropertyDescriptor(globalThis, key)]));
}

function sameDescriptor(a: PropertyDescriptor | undefined, b: PropertyDescriptor | undefined): boolean {
  return a?.value === b?.value && a?.get === b?.get && a?.set === b?.set && (a === undefined) === (b === undefined);
}

/**
 * One happy-dom window for the whole process, attached to globalThis while a client test file runs.
 * It is detached between files rather than closed and re-created: modules loaded once keep
 * references into it (wouter patches that window's history.pushState when it is first imported).
 */
function installDom(url = 'http://localhost:3000/'): void {
  if (installed) return;
  installed = true;
  if (registration) {
    for (const [key, descriptor] of registration.dom) setGlobal(key, descriptor);
    return;
  }
  const before = globalDescriptors();
  const saved = new Map<string, unknown>(bunGlobals.map((name) => [name, (globalThis as Record<string, unknown>)[name]]));
  GlobalRegistrator.register({ url, width: 1280, height: 800 });
  for (const [name, value] of saved) {
    if (value !== undefined) (globalThis as Record<string, unknown>)[name] = value;
  }
  (globalThis as Record<string, unknown>).IS_REACT_ACT_ENVIRONMENT = true;
  const after = globalDescriptors();
  const dom: Descriptors = new Map();
  const previous: Descriptors = new Map();
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    if (sameDescriptor(before.get(key), after.get(key))) continue;
    dom.set(key, after.get(key));
    previous.set(key, before.get(key));
  }
  registration = { dom, previous };
}

function removeDom(): void {
  if (!installed || !registration) return;
  installed = false;
  for (const [key, descriptor] of registration.previous) setGlobal(key, descriptor);
}

/** Puts a global property back as described; a non-configurable one only gets its value assigned. */
function setGlobal(key: PropertyKey, descriptor: PropertyDescriptor | undefined): void {
  const target = globalThis as Record<PropertyKey, unknown>;
  try {
    if (descriptor) Object.defineProperty(globalThis, key, descriptor);
    else delete target[key];
  } catch {
    if (descriptor && 'value' in descriptor) target[key] = descriptor.value;
  }
}

/**
 * Per test file: the DOM from now (the file's dynamic imports that follow need it: wouter patches
 * history when it loads, TanStack Query decides whether it runs on a server) to its last test, with
 * rendered trees unmounted after each test.
 */
export function useDom(): void {
  installDom();
  beforeAll(async () => {
    installDom();
    // Lazy routes are transpiled on first import, which can take longer than the default second.
    const { configure } = await import('@testing-library/react');
    configure({ asyncUtilTimeout: 5000 });
  });
  beforeEach(async () => {
    // The interface language is process-wide state (paraglide's locale); other test files change it.
    const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');
    setLanguage('en');
    localStorage.clear();
  });
  afterEach(async () => {
    const { cleanup } = await import('@testing-library/react');
    cleanup();
    localStorage.clear();
    sessionStorage.clear();
  });
  afterAll(async () => {
    const { cleanup } = await import('@testing-library/react');
    cleanup();
    // Let React's scheduler finish what unmounting queued before the window goes away.
    await new Promise((resolve) => setTimeout(resolve, 50));
    removeDom();
  });
}

// Installed at import too: @testing-library's module looks for a document when it is first loaded,
// and it registers its own hooks then, which Bun only accepts at a file's top level (not in a hook).
installDom();
await import('@testing-library/react');
