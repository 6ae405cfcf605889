import { z } from 'zod';

/**
 * Elysia's query parser reads a value shaped like JSON ('{…}', '[…]') as JSON and splits other values at
 * commas. A query field that carries free text (Steam's callback parameters as JSON in `code`) gets the
 * text that was sent back before its schema checks it; the OpenAPI document still shows the schema.
 */
export function queryText<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => {
    if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(',');
    if (typeof value === 'object' && value !== null) return JSON.stringify(value);
    return value;
  }, schema);
}
