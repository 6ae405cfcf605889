import type { BranchRetention } from '../../../../shared/schemas/branches.ts';

/** The one place where the form's days meet the API's seconds (spec §3 keeps times in seconds). */
const secondsPerDay = 86_400;
export const maxRetentionDays = 36_500;
export const maxRetentionCount = 1_000_000;

export function daysToSeconds(days: number): number {
  return days * secondsPerDay;
}

/** Whole days for the form; a time that is not a whole number of days is rounded up, never shortened. */
export function secondsToDays(seconds: number): number {
  return Math.ceil(seconds / secondsPerDay);
}

export type RetentionField = keyof BranchRetention;
export const retentionFields: readonly RetentionField[] = ['quotaCount', 'quotaTime', 'quotaNonCurrentTime'];

export function isTimeField(field: RetentionField): boolean {
  return field !== 'quotaCount';
}

/** The text shown in a field: empty for "project default", days for times. */
export function retentionInputValue(retention: BranchRetention, field: RetentionField): string {
  const value = retention[field];
  if (value === null) return '';
  return String(isTimeField(field) ? secondsToDays(value) : value);
}

/** A field's text → the API value (null = project default, 0 = no limit), or 'invalid'. */
export function parseRetentionInput(text: string, field: RetentionField): number | null | 'invalid' {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^\d+$/.test(trimmed)) return 'invalid';
  const number = Number(trimmed);
  const max = isTimeField(field) ? maxRetentionDays : maxRetentionCount;
  // 0: no limit (indefinitely), even where the project's default has one.
  if (number > max) return 'invalid';
  return isTimeField(field) ? daysToSeconds(number) : number;
}
