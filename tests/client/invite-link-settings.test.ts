import './setup.ts';
import { expect, test } from 'bun:test';
import { endOfDay, parseSeats } from '../../src/client/dialogs/create-invite-link-dialog.tsx';

test('endOfDay: a day from today on becomes that day\'s last moment; past days and junk are refused', () => {
  const now = new Date(2030, 5, 15, 12, 0, 0);
  const today = endOfDay('2030-06-15', now);
  expect(today?.getFullYear()).toBe(2030);
  expect([today?.getMonth(), today?.getDate(), today?.getHours(), today?.getMinutes()]).toEqual([5, 15, 23, 59]);
  expect(endOfDay('2030-07-01', now)?.getDate()).toBe(1);
  expect(endOfDay('2030-06-14', now)).toBeUndefined();
  expect(endOfDay('', now)).toBeUndefined();
  expect(endOfDay('15/06/2030', now)).toBeUndefined();
});

test('parseSeats: whole numbers from 1 to 1000000 only', () => {
  expect(parseSeats('3')).toBe(3);
  expect(parseSeats(' 12 ')).toBe(12);
  expect(parseSeats('1000000')).toBe(1_000_000);
  for (const refused of ['', '0', '-1', '2.5', '1e3', 'abc', '1000001']) expect(parseSeats(refused)).toBeUndefined();
});
