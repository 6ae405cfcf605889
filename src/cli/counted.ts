import { pluralForm } from '../shared/format/plural.ts';

/** "1 file", "2 files", "0 files": the CLI's English, by the one plural rule (src/shared/format). */
export function counted(count: number, one: string, other: string): string {
  return `${count} ${pluralForm(count) === 'one' ? one : other}`;
}
