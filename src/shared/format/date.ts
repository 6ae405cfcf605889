/** Dates through Intl in the interface language; invalid or missing input gives an empty string. */
export function formatDateTime(value: string | Date | null | undefined, locale: string, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }): string {
  if (value === null || value === undefined) return '';
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return '';
  try {
    return new Intl.DateTimeFormat(locale, options).format(date);
  } catch {
    return new Intl.DateTimeFormat('en', options).format(date);
  }
}

export function formatDate(value: string | Date | null | undefined, locale: string): string {
  return formatDateTime(value, locale, { dateStyle: 'medium' });
}
