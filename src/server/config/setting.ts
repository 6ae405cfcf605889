import { z } from 'zod';

/** What documents a setting: its default as --help shows it, its meaning, whether its value is secret. */
export type SettingDoc = {
  /** The default text, or what happens when the variable is unset. */
  shown: string;
  doc: string;
  /** Never echoed in a configuration error. */
  secret: boolean;
};

/** The documentation of every declared setting, by its parser (settings.ts declares them). */
const settingDocs = z.registry<SettingDoc>();

type Options = { secret?: boolean };

/**
 * A variable with a default: unset (or empty), its text is `fallback`, parsed like a given value.
 * --help shows `fallback` unless `shown` says otherwise.
 */
export function withDefault<S extends z.ZodType>(parse: S, fallback: string, doc: string, options: Options & { shown?: string } = {}) {
  const schema = z.preprocess((value) => value ?? fallback, parse);
  settingDocs.add(schema, { shown: options.shown ?? fallback, doc, secret: options.secret ?? false });
  return schema;
}

/** A variable that may stay unset (undefined); `shown` says what happens then. */
export function optional<S extends z.ZodType>(parse: S, shown: string, doc: string, options: Options = {}) {
  const schema = parse.optional();
  settingDocs.add(schema, { shown, doc, secret: options.secret ?? false });
  return schema;
}

/** The documentation of a declared setting (each is made by withDefault or optional). */
export function settingDocOf(name: string, schema: z.ZodType): SettingDoc {
  const found = settingDocs.get(schema);
  if (!found) throw new Error(`the setting ${name} is declared without withDefault or optional`);
  return found;
}
