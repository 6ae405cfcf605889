import { expect, test } from 'bun:test';
import { languageCodes } from '../../src/shared/i18n/languages.ts';
import { checkAdditions } from '../../src/tools/i18n-add.ts';

/** An addition of `key` with a text in every language. */
function complete(key: string, text = 'Hello there'): Record<string, Record<string, string>> {
  return Object.fromEntries(languageCodes.map((code) => [code, { [key]: `${text} (${code})` }]));
}

test('a complete addition of a new key is accepted', () => {
  expect(checkAdditions(complete('greeting_text'), {})).toEqual([]);
});

test('a language without a text, an unknown language and a stray key are each named', () => {
  const additions = complete('greeting_text');
  delete additions.de;
  additions.fr = { greeting_text: '  ' };
  additions.ja = { greeting_text: 'こんにちは', other_key: 'x' };
  additions.xx = { greeting_text: '?' };
  expect(checkAdditions(additions, {})).toEqual(['de: missing', 'fr: no text for greeting_text', 'ja: keys not in "en": other_key', 'xx: unknown language']);
});

test('an existing key with another English text is refused unless replacing', () => {
  const english = { greeting_text: 'Hi' };
  expect(checkAdditions(complete('greeting_text'), english)).toEqual(['greeting_text: already in en.json with another text']);
  expect(checkAdditions(complete('greeting_text'), english, { replace: true })).toEqual([]);
  expect(checkAdditions(complete('Bad-Key'), {})).toContain('Bad-Key: keys are lower_snake_case');
});
