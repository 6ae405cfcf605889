import { describe, expect, test } from 'bun:test';
import { versionTitleProblem, versionTitleSchema } from '../../src/shared/schemas/versions.ts';

/** The New version dialog's check before any upload (issue 29): the server's rule, then the titles taken. */
describe('versionTitleProblem', () => {
  test('the schema\'s rule: required, at most 64 characters, no control characters', () => {
    expect(versionTitleProblem('', [])).toBe('required');
    expect(versionTitleProblem('  \u200b ', [])).toBe('required');
    expect(versionTitleProblem('a'.repeat(65), [])).toBe('too_long');
    expect(versionTitleProblem('a'.repeat(64), [])).toBeNull();
    expect(versionTitleProblem('1.0\u0007', [])).toBe('invalid');
    expect(versionTitleProblem('1.0\tbeta', [])).toBe('invalid');
  });

  test('a title taken as the server compares it: after cleaning and trimming, exactly', () => {
    const taken = ['1.0.0', 'Beta'];
    expect(versionTitleProblem('1.0.0', taken)).toBe('taken');
    expect(versionTitleProblem(' 1.0.0 ', taken)).toBe('taken');
    expect(versionTitleProblem('1.0\u200b.0', taken)).toBe('taken');
    expect(versionTitleProblem('beta', taken)).toBeNull();
    expect(versionTitleProblem('1.0.1', taken)).toBeNull();
  });

  test('agrees with the schema on what it accepts', () => {
    for (const title of ['', ' ', 'x', 'a'.repeat(64), 'a'.repeat(65), 'a\u0000b', 'ok\u202e', '1.0\n']) {
      expect(versionTitleProblem(title, []) === null).toBe(versionTitleSchema.safeParse(title).success);
    }
  });
});
