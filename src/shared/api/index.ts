export { createApiClient, type ApiClient, type ApiClientOptions, type CallInput, type CallOptions } from './client.ts';
export { abortedError, ApiError, clientErrorCodes, isAbortError, responseError, toApiError, TriedFewTimesError, type ApiErrorOptions, type ClientErrorCode } from './errors.ts';
export { getJobState, readEvents, waitForJob, watchJobs, type FinishedJob, type WaitForJobOptions, type WatchedJob, type WatchJobsOptions } from './jobs.ts';
export { sleep } from '../sleep.ts';
export { noRetry, uploadRetry, UPLOAD_RETRY_DELAY_MS, UPLOAD_TRIES, withRetries, type RetryPolicy } from './retry.ts';
export type { AnyRoute, BodyOf, HttpMethod, PathParams, QueryOf, RawBody, ReplyOf, Route, RouteInput } from './route.ts';
export { routes } from './routes.ts';
export type { DocsPage } from './replies.ts';
export type { StartedExternalAuth } from '../schemas/external-auth.ts';
