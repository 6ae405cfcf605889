import { describe, expect, test } from 'bun:test';
import {
  maxStoreTagLength,
  maxStoreTags,
  normaliseStoreTag,
  storeTagProblem,
  storeTagSuggestions,
  storeTagsProblem,
  storeTagsSchema,
} from '../../src/shared/schemas/store-tags.ts';

/** The rule of a project's store tags (issue 29): src/shared/schemas/store-tags.ts. */
describe('normaliseStoreTag', () => {
  test('trims, collapses spaces, lower-cases, NFKC, drops invisible formatting', () => {
    expect(normaliseStoreTag('  Visual   Novel ')).toBe('visual novel');
    expect(normaliseStoreTag('ＲＰＧ')).toBe('rpg');
    expect(normaliseStoreTag('turn\u00A0based')).toBe('turn based');
    expect(normaliseStoreTag('ideographic\u3000space')).toBe('ideographic space');
    expect(normaliseStoreTag('pu\u200Bzzle')).toBe('puzzle');
    expect(normaliseStoreTag('\u202Eevil\u202C')).toBe('evil');
    // Composed and decomposed forms are one tag.
    expect(normaliseStoreTag('Cafe\u0301')).toBe('café');
    expect(normaliseStoreTag('ÉQUIPE')).toBe('équipe');
  });

  test('is idempotent (the door and the service both parse)', () => {
    for (const raw of ['  Visual   Novel ', 'ＲＰＧ', 'Cafe\u0301', 'İSTANBUL', 'ΣΊΣΥΦΟΣ', 'ǅungla', 'Ⅻ', 'ﬁght', 'パズル', 'ｶﾀｶﾅ']) {
      const once = normaliseStoreTag(raw);
      expect({ raw, twice: normaliseStoreTag(once) }).toEqual({ raw, twice: once });
    }
  });
});

describe('storeTagProblem', () => {
  test('letters of any script, digits, spaces and hyphens are taken', () => {
    for (const tag of ['action', 'co-op', '2d', 'point and click', 'ролевая', 'パズル', '解谜', 'ألغاز', 'पहेली', 'ปริศนา', 'spiel-für-zwei', 'a'.repeat(maxStoreTagLength)]) {
      expect({ tag, problem: storeTagProblem(tag) }).toEqual({ tag, problem: null });
    }
    for (const suggestion of storeTagSuggestions) expect(storeTagProblem(suggestion)).toBeNull();
  });

  test('control characters are refused before normalising: NUL, line breaks, tabs, DEL, C1, lone surrogates', () => {
    for (const tag of ['puz\u0000zle', 'puzzle\n', '\tpuzzle', 'a\u007Fb', 'a\u0085b', 'a\uD800b', '\u001B[31mred']) {
      expect({ tag, problem: storeTagProblem(tag) }).toEqual({ tag, problem: 'control' });
    }
  });

  test('empty once normalised, too long once normalised, other characters', () => {
    expect(storeTagProblem('')).toBe('empty');
    expect(storeTagProblem('    ')).toBe('empty');
    expect(storeTagProblem('\u200B')).toBe('empty');
    expect(storeTagProblem('a'.repeat(maxStoreTagLength + 1))).toBe('too_long');
    // Counted in characters, not UTF-16 units: 24 letters outside the BMP pass, 25 do not.
    expect(storeTagProblem('𝒜'.repeat(maxStoreTagLength))).toBe(null);
    expect(storeTagProblem('𐐀'.repeat(maxStoreTagLength + 1))).toBe('too_long');
    // Spaces that collapse do not count.
    expect(storeTagProblem(`  ${'a'.repeat(12)}      ${'b'.repeat(11)}  `)).toBeNull();
    expect(storeTagProblem('x'.repeat(100_000))).toBe('too_long');
    for (const tag of ['c++', 'rpg!', 'a_b', 'a.b', 'a/b', 'a,b', '<script>', '"', 'emoji 🎮', '---', '- -', '\u0301a', 'a\u00ADb', 'a\u2028b']) {
      expect({ tag, problem: storeTagProblem(tag) }).toEqual({ tag, problem: 'characters' });
    }
  });
});

describe('storeTagsProblem and storeTagsSchema', () => {
  test('parse to the normalised tags in order', () => {
    expect(storeTagsSchema.parse([' Puzzle ', 'CO-OP', 'Visual  Novel'])).toEqual(['puzzle', 'co-op', 'visual novel']);
    expect(storeTagsSchema.parse([])).toEqual([]);
    expect(storeTagsProblem([' Puzzle ', 'CO-OP'])).toBeNull();
  });

  test(`at most ${maxStoreTags}`, () => {
    const ten = Array.from({ length: maxStoreTags }, (_, i) => `tag ${i}`);
    expect(storeTagsSchema.parse(ten)).toEqual(ten);
    expect(storeTagsSchema.safeParse([...ten, 'one more']).success).toBe(false);
    expect(storeTagsProblem([...ten, 'one more'])).toEqual({ kind: 'too_many' });
  });

  test('duplicates after normalising are refused, naming the repeat', () => {
    expect(storeTagsProblem(['rpg', 'strategy', ' RPG '])).toEqual({ kind: 'duplicate', index: 2 });
    expect(storeTagsProblem(['café', 'Cafe\u0301'])).toEqual({ kind: 'duplicate', index: 1 });
    const result = storeTagsSchema.safeParse(['rpg', 'strategy', ' RPG ']);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([[2]]);
  });

  test('the first bad tag is named', () => {
    expect(storeTagsProblem(['rpg', 'a\u0000', 'b!'])).toEqual({ kind: 'control', index: 1 });
    expect(storeTagsProblem(['rpg', '', 'b!'])).toEqual({ kind: 'empty', index: 1 });
    const result = storeTagsSchema.safeParse(['rpg', 'a\u0000']);
    expect(result.error?.issues[0]).toMatchObject({ path: [1], message: 'must not contain control characters' });
  });

  test('wrong types are refused', () => {
    for (const value of [null, 'rpg', 1, {}, { 0: 'rpg' }, [1], [null], [['rpg']], [{ tag: 'rpg' }], [true]]) {
      expect({ value, success: storeTagsSchema.safeParse(value).success }).toEqual({ value, success: false });
    }
  });
});

describe("the manage page's draft (addStoreTag)", async () => {
  const { addStoreTag, sameTags } = await import('../../src/client/routes/projects/manage/store-tags-draft.ts');

  test('adds the normalised tag at the end; refuses by the rule, repeats and an eleventh', () => {
    expect(addStoreTag(['rpg'], '  Visual   Novel ')).toEqual({ tags: ['rpg', 'visual novel'] });
    expect(addStoreTag(['rpg'], ' RPG ')).toEqual({ problem: { kind: 'duplicate', tag: 'rpg' } });
    expect(addStoreTag([], 'c++')).toEqual({ problem: { kind: 'characters' } });
    expect(addStoreTag([], 'a\u0000')).toEqual({ problem: { kind: 'control' } });
    expect(addStoreTag([], '  ')).toEqual({ problem: { kind: 'empty' } });
    expect(addStoreTag([], 'x'.repeat(25))).toEqual({ problem: { kind: 'too_long' } });
    const ten = Array.from({ length: maxStoreTags }, (_, i) => `t${i}`);
    expect(addStoreTag(ten, 'more')).toEqual({ problem: { kind: 'too_many' } });
    // A repeat is named as such even when the list is full.
    expect(addStoreTag(ten, 'T1')).toEqual({ problem: { kind: 'duplicate', tag: 't1' } });
    expect(sameTags(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(sameTags(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(sameTags(['a'], ['a', 'b'])).toBe(false);
  });
});
