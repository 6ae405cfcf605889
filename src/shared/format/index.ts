export { formatDate, formatDateTime } from './date.ts';
export { plural, pluralForm, type PluralForm } from './plural.ts';
export { formatSize } from './size.ts';
