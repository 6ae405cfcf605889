import { afterAll, beforeAll, test } from 'bun:test';
import { startE2E, type E2E } from './support/app.ts';
import { checkLanguageSwitch } from './support/languages.ts';

/** Spec §1, §4: the switcher changes the language (first half of the 13; languages-2 has the rest). */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

for (const code of ['de', 'en', 'es', 'fr', 'ja', 'ko', 'pl']) {
  test(`switch to ${code}: text, <html lang dir>, stored under lang, survives a reload`, () => checkLanguageSwitch(e2e, code), 30_000);
}
