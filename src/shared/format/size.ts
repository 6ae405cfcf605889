/** Binary units after bytes (spec §9): steps of 1024. */
const units = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/**
 * Size display of spec §9: bytes below 1000 as 'N B'; otherwise KiB, MiB, GiB or TiB in steps of 1024,
 * with one decimal when the shown number is below 10 and none otherwise.
 *
 * Boundary decisions (the spec leaves them open):
 * - 1000 B is no longer shown in bytes: 1000 B → '1.0 KiB' (0.977 KiB rounded to one decimal), so a
 *   shown number never has four digits.
 * - The unit is the first one whose *rounded* value is below 1000, so 1023.9 KiB is '1.0 MiB', never
 *   '1000 KiB'. TiB is the last unit and may exceed 999.
 * - Decimals are chosen after rounding: 9.96 KiB rounds to 10.0, which is not below 10, so it is '10 KiB'.
 * - Negative, fractional or non-finite input is clamped/truncated to a whole non-negative byte count.
 * `locale` (a BCP 47 tag) localises the decimal separator; without it the separator is '.'.
 */
export function formatSize(bytes: number, locale?: string): string {
  const whole = Number.isFinite(bytes) ? Math.max(0, Math.trunc(bytes)) : 0;
  if (whole < 1000) return `${formatNumber(whole, 0, locale)} B`;
  let value = whole;
  for (let index = 0; index < units.length; index++) {
    value /= 1024;
    const isLast = index === units.length - 1;
    const oneDecimal = Math.round(value * 10) / 10;
    if (oneDecimal < 10) return `${formatNumber(oneDecimal, 1, locale)} ${units[index]}`;
    const rounded = Math.round(value);
    if (rounded < 1000 || isLast) return `${formatNumber(rounded, 0, locale)} ${units[index]}`;
  }
  /* c8 ignore next */
  throw new Error('unreachable');
}

function formatNumber(value: number, decimals: 0 | 1, locale: string | undefined): string {
  if (!locale) return value.toFixed(decimals);
  return new Intl.NumberFormat(locale, { minimumFractionDigits: decimals, maximumFractionDigits: decimals, useGrouping: false }).format(value);
}
