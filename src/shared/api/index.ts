export { createApiClient, type ApiClient } from './client.ts';
export { ApiError, TriedFewTimesError } from './errors.ts';
export { uploadRetry, withRetries } from './retry.ts';
export type { AnyRoute } from './route.ts';
export { routes } from './routes.ts';
