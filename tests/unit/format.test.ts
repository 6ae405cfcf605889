import { describe, expect, test } from 'bun:test';
import { formatDate, formatDateTime, formatSize, plural, pluralForm } from '../../src/shared/format/index.ts';

describe('formatSize', () => {
  test.each([
    [0, '0 B'],
    [1, '1 B'],
    [999, '999 B'],
    [1000, '1.0 KiB'],
    [1023, '1.0 KiB'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [10 * 1024 - 52, '9.9 KiB'],
    [10 * 1024 - 40, '10 KiB'], // 9.96 KiB rounds to 10.0: no decimal once the shown number is 10
    [10 * 1024, '10 KiB'],
    [999 * 1024, '999 KiB'],
    [999.4 * 1024, '999 KiB'],
    [999.6 * 1024, '1.0 MiB'], // would round to 1000 KiB: moves up a unit instead
    [1024 * 1024, '1.0 MiB'],
    [5.25 * 1024 ** 2, '5.3 MiB'],
    [123.4 * 1024 ** 2, '123 MiB'],
    [1024 ** 3, '1.0 GiB'],
    [2.5 * 1024 ** 4, '2.5 TiB'],
    [5000 * 1024 ** 4, '5000 TiB'], // TiB is the last unit
  ])('%d bytes → %s', (bytes, shown) => {
    expect(formatSize(bytes)).toBe(shown);
  });

  test('clamps nonsense to bytes', () => {
    expect(formatSize(-5)).toBe('0 B');
    expect(formatSize(Number.NaN)).toBe('0 B');
    expect(formatSize(12.7)).toBe('12 B');
  });

  test('uses the locale decimal separator when given one', () => {
    expect(formatSize(1536, 'de')).toBe('1,5 KiB');
    expect(formatSize(1536, 'en')).toBe('1.5 KiB');
    expect(formatSize(20 * 1024 ** 2, 'fr')).toBe('20 MiB');
  });
});

describe('plural', () => {
  test('singular only for exactly one', () => {
    expect(pluralForm(1)).toBe('one');
    for (const count of [0, 2, 1.5, -1, 0.999, 21, 101]) expect(pluralForm(count)).toBe('other');
  });

  test('picks the message and passes the count', () => {
    const one = ({ count }: { count: number }) => `${count} file`;
    const other = ({ count }: { count: number }) => `${count} files`;
    expect(plural(1, one, other)).toBe('1 file');
    expect(plural(0, one, other)).toBe('0 files');
    expect(plural(2, one, other)).toBe('2 files');
  });
});

describe('dates', () => {
  const moment = '2026-03-04T05:06:07.000Z';
  test('formats with Intl in the language', () => {
    expect(formatDate(moment, 'en')).toBe(new Intl.DateTimeFormat('en', { dateStyle: 'medium' }).format(new Date(moment)));
    expect(formatDate(moment, 'de')).toContain('2026');
    expect(formatDateTime(moment, 'ja')).toBe(new Intl.DateTimeFormat('ja', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(moment)));
  });
  test('empty for missing or invalid input; bad locale falls back to en', () => {
    expect(formatDate(null, 'en')).toBe('');
    expect(formatDate('not a date', 'en')).toBe('');
    expect(formatDate(moment, '!!')).toBe(formatDate(moment, 'en'));
  });
});
