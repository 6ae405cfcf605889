import { helperStateSchema } from '../../src/helper/state/schema.ts';

/** The first problem of a state file's text, or undefined when it is valid. */
export function validateStateText(text: string): string | undefined {
  const parsed = helperStateSchema.safeParse(JSON.parse(text));
  return parsed.success ? undefined : parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
}
