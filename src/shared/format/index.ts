export { formatDate, formatDateTime } from './date.ts';
export { plural, pluralForm } from './plural.ts';
export { formatSize } from './size.ts';
