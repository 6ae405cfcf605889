import { describe, expect, test } from 'bun:test';
import { Glob } from 'bun';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isRefusalReason, refusalReasonOf, refusalReasons } from '../../src/shared/refusal-reasons.ts';

/**
 * The shared list of refusal reasons (src/shared/refusal-reasons.ts) and the one way the server gives
 * them (errors.ts `refusal`, typed on the list): no AppError writes a reason by hand, apart from the two
 * details.reason values the list says are not refusal reasons.
 */
const root = resolve(import.meta.dir, '../..');

describe('the list', () => {
  test('short snake_case words, each once', () => {
    for (const reason of refusalReasons) expect(reason).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(new Set(refusalReasons).size).toBe(refusalReasons.length);
  });

  test('refusalReasonOf reads details.reason only when it is listed', () => {
    expect(refusalReasonOf({ field: 'packages', reason: 'no_packages' })).toBe('no_packages');
    expect(refusalReasonOf({ reason: 'nested deeper than 64 levels' })).toBeUndefined();
    expect(refusalReasonOf({ reason: 7 })).toBeUndefined();
    expect(refusalReasonOf(undefined)).toBeUndefined();
    expect(refusalReasonOf('no_packages')).toBeUndefined();
    expect(isRefusalReason('channel_busy')).toBe(true);
    expect(isRefusalReason('toString')).toBe(false);
  });
});

describe('the server', () => {
  test('gives reasons through refusal(), never in a hand-written AppError', () => {
    const handWritten: string[] = [];
    for (const file of new Glob('src/server/**/*.ts').scanSync(root)) {
      if (file === 'src/server/errors.ts') continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (let at = text.indexOf('new AppError('); at !== -1; at = text.indexOf('new AppError(', at + 1)) {
        const call = text.slice(at, text.indexOf(';', at));
        if (/(?<!\$)[{,]\s*reason\s*[:,}]/.test(call)) handWritten.push(`${file}: ${call.split('\n')[0]}`);
      }
    }
    // The body guard's nesting refusal (its limit in words) and an ended cloud session (its end reason).
    expect(handWritten.map((line) => line.split(':')[0]).sort()).toEqual(['src/server/domains/cloud-play/sessions.service.ts', 'src/server/http/json-body.ts']);
  });
});
