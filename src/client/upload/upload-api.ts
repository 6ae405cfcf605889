import { decodeIndex, type ArchiveIndex } from '../../shared/archive/index.ts';
import type { CreatedPackage, Package, ResolveJob } from '../../shared/schemas/packages.ts';
import type { JobState } from '../../shared/schemas/jobs.ts';
import type { PartDescriptor } from '../../shared/upload/index.ts';
import { responseError, UploadRequestError } from '../../shared/upload/index.ts';

/**
 * The REST calls of an upload, with the API origin and bearer token passed in: the pipeline runs in a
 * worker, which shares no module state (lib/api.ts's token) with the page.
 */
export type UploadApiConfig = { origin: string; token: string | null; fetch?: typeof fetch };

export type CreatePackageBody = { size: number; title: string | null; tags: string[]; entrypoint: string[] | null; basePackage: string | null };

export type UploadApi = {
  createPackage(project: string, body: CreatePackageBody, signal?: AbortSignal): Promise<CreatedPackage>;
  finalizePackage(project: string, packageId: string, token: string, parts: PartDescriptor[], signal?: AbortSignal): Promise<Package>;
  resolvePackage(project: string, packageId: string, signal?: AbortSignal): Promise<ResolveJob>;
  jobState(token: string, signal?: AbortSignal): Promise<JobState>;
  baseIndex(project: string, packageId: string, signal?: AbortSignal): Promise<ArchiveIndex>;
  /** DELETE .../packages/{package}: a cancelled upload's record (needs the deletePackage action). */
  deletePackage(project: string, packageId: string, signal?: AbortSignal): Promise<void>;
};

export function createUploadApi(config: UploadApiConfig): UploadApi {
  const doFetch = config.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const origin = config.origin.replace(/\/$/, '');

  async function call<T>(what: string, path: string, init: { method?: string; json?: unknown; signal?: AbortSignal } = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (config.token) headers.authorization = `Bearer ${config.token}`;
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await doFetch(`${origin}/api${path}`, {
        method: init.method ?? 'GET',
        headers,
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
        credentials: 'same-origin',
        signal: init.signal,
      });
    } catch (error) {
      if (init.signal?.aborted) throw init.signal.reason;
      throw new UploadRequestError(`${what}: ${error instanceof Error ? error.message : String(error)}`, 0);
    }
    if (!response.ok) throw await responseError(response, what);
    return (await response.json()) as T;
  }

  const packagePath = (project: string, packageId: string) => `/projects/${encodeURIComponent(project)}/packages/${encodeURIComponent(packageId)}`;

  return {
    createPackage: (project, body, signal) => call('create', `/projects/${encodeURIComponent(project)}/packages`, { method: 'POST', json: body, signal }),
    finalizePackage: (project, packageId, token, parts, signal) => call('finalize', `${packagePath(project, packageId)}/finalize`, { method: 'PUT', json: { token, parts }, signal }),
    resolvePackage: (project, packageId, signal) => call('resolve', `${packagePath(project, packageId)}/resolve`, { method: 'POST', signal }),
    async jobState(token, signal) {
      const states = await call<JobState[]>('resolve', '/jobs', { method: 'POST', json: { tokens: [token] }, signal });
      const state = states[0];
      if (!state) throw new UploadRequestError('resolve: the job is unknown', 404, 'not_found');
      return state;
    },
    async deletePackage(project, packageId, signal) {
      await call('delete', packagePath(project, packageId), { method: 'DELETE', signal });
    },
    async baseIndex(project, packageId, signal) {
      const { url } = await call<{ url: string }>('base index', `${packagePath(project, packageId)}/download?filter=index`, { signal });
      let response: Response;
      try {
        response = await doFetch(url, { signal });
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw new UploadRequestError(`base index: ${error instanceof Error ? error.message : String(error)}`, 0);
      }
      if (!response.ok) throw await responseError(response, 'base index');
      return decodeIndex(new Uint8Array(await response.arrayBuffer()));
    },
  };
}
