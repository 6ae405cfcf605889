import { z } from 'zod';
import { recordIdSchema } from './text.ts';

/** A segment of a documentation path (a language, a page name): any text, bounded; the service checks it. */
const docsSegment = z.string().max(100);

/**
 * The schema of every `:name` in the route table's paths (src/shared/api/routes.ts), by name: a path is
 * checked from its parameter names alone, so a row never repeats them. An id is a record id; a
 * platform is checked against the list by the local-app service (an unknown one is not_found).
 */
export const pathParamSchemas = {
  project: recordIdSchema,
  branch: recordIdSchema,
  version: recordIdSchema,
  package: recordIdSchema,
  invite: recordIdSchema,
  session: recordIdSchema,
  credential: recordIdSchema,
  site: recordIdSchema,
  image: recordIdSchema,
  machine: recordIdSchema,
  lang: docsSegment,
  page: docsSegment,
  platform: z.string().max(64),
} as const;

