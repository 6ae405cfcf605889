import './setup.ts';
import { expect, test } from 'bun:test';
import { daysToSeconds, parseRetentionInput, retentionInputValue, secondsToDays } from '../../src/client/routes/projects/branch/retention.ts';

/** The branch page's 'Keep versions' form: days in the form, seconds in the API, empty = project default. */
test('days and seconds convert both ways; partial days round up', () => {
  expect(daysToSeconds(30)).toBe(2_592_000);
  expect(secondsToDays(2_592_000)).toBe(30);
  expect(secondsToDays(86_401)).toBe(2);
});

test('form values: empty inherits, numbers in range, anything else refused', () => {
  expect(parseRetentionInput('  ', 'quotaTime')).toBeNull();
  expect(parseRetentionInput('7', 'quotaTime')).toBe(7 * 86_400);
  expect(parseRetentionInput('7', 'quotaCount')).toBe(7);
  for (const bad of ['-1', '1.5', 'abc', '36501']) expect(parseRetentionInput(bad, 'quotaNonCurrentTime')).toBe('invalid');
  // 0 keeps versions indefinitely, whatever the project's default.
  expect(parseRetentionInput('0', 'quotaNonCurrentTime')).toBe(0);
  expect(parseRetentionInput('0', 'quotaCount')).toBe(0);
  expect(parseRetentionInput('36501', 'quotaCount')).toBe(36_501);
  expect(parseRetentionInput('1000001', 'quotaCount')).toBe('invalid');
});

test('stored values show as days, null as an empty field', () => {
  const retention = { quotaCount: 5, quotaTime: 10 * 86_400, quotaNonCurrentTime: null };
  expect(retentionInputValue(retention, 'quotaCount')).toBe('5');
  expect(retentionInputValue(retention, 'quotaTime')).toBe('10');
  expect(retentionInputValue(retention, 'quotaNonCurrentTime')).toBe('');
});
