import { z } from 'zod';
import { tokenText } from './text.ts';

/**
 * Jobs as clients see them (spec §3 "Job update events", §7 POST /jobs, GET /jobs). A job is reached
 * only through its access token, returned by the call that started it (resolve, deploy, ...).
 */

const jobTokenSchema = tokenText();

/** POST /jobs body and tRPC jobs.state input: the tokens, in the order the answer keeps. */
export const jobTokensInput = z.object({ tokens: z.array(jobTokenSchema).min(1).max(100) });

/** The queue's statuses: queued (again after a failed attempt that is retried), running, then one final. */
const jobStatusSchema = z.enum(['queued', 'running', 'succeeded', 'errored']);
export type JobStatusName = z.infer<typeof jobStatusSchema>;

/** Lines of a job's log the server keeps (the newest); each line at most maxJobLogLineLength characters. */
export const maxJobLogLines = 200;
export const maxJobLogLineLength = 500;

/**
 * The state of one job. index: the position of its token in the request. progress: 0..1 while it runs
 * (null until the handler reports some). stage: what a running job is doing, in its kind's words (a
 * deploy: downloading, unpacking, uploading), null before it says. log: the lines it wrote for people
 * to read (the newest maxJobLogLines). output: the kind's result once succeeded, else null. error: the
 * message of the last failed attempt (set when errored; may be set while queued for a retry).
 */
export const jobStateSchema = z.object({
  index: z.number().int().min(0),
  status: jobStatusSchema,
  progress: z.number().nullable(),
  stage: z.string().nullable(),
  log: z.array(z.string()),
  output: z.unknown(),
  error: z.string().nullable(),
});
export type JobState = z.infer<typeof jobStateSchema>;

/** What a service that starts a job answers: the job id and the token that shows it (spec §7 resolve, deploy). */
export const startedJobSchema = z.object({ job: z.string(), token: z.string() });
export type StartedJob = z.infer<typeof startedJobSchema>;

/**
 * The data of a `job_updated` server-sent event. job: the index of the job's token in the query.
 * 'progress': the job is not finished; sent on connect and whenever its status, stage, progress or log
 * changes. 'output': the job finished (succeeded or errored); sent once per job, and last for it.
 * log: the lines written since this stream's previous event of the job (on connect: every kept line),
 * so a client appends them; lines dropped from the kept window before they were sent are not repeated.
 */
const jobUpdatedEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('progress'),
    job: z.number().int(),
    status: z.enum(['queued', 'running']),
    progress: z.number().nullable(),
    stage: z.string().nullable(),
    log: z.array(z.string()),
  }),
  z.object({
    type: z.literal('output'),
    job: z.number().int(),
    status: z.enum(['succeeded', 'errored']),
    progress: z.number().nullable(),
    stage: z.string().nullable(),
    log: z.array(z.string()),
    output: z.unknown(),
    error: z.string().nullable(),
  }),
]);
export type JobUpdatedEvent = z.infer<typeof jobUpdatedEventSchema>;

/** GET /jobs query: `token` repeated, one per job (a single one arrives as a string). */
export const jobStreamQuery = z.object({ token: z.union([jobTokenSchema, z.array(jobTokenSchema).min(1).max(100)]) });
