import { responseError, UploadRequestError, withRetries } from '../shared/upload/index.ts';
import type { CliIo } from './io.ts';

export type ApiOptions = { server: string; token?: string; io: CliIo; retryDelayMs: number };

/**
 * The REST API under {server}/api with the bearer token. Every call is tried 3 times 5 s apart on
 * network errors and 5xx (spec §9); refusals throw UploadRequestError with the server's code.
 */
export class Api {
  constructor(readonly options: ApiOptions) {}

  get server(): string {
    return this.options.server;
  }

  url(path: string): string {
    return `${this.options.server.replace(/\/+$/, '')}/api${path}`;
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { io } = this.options;
    const response = await withRetries(
      async () => {
        const headers: Record<string, string> = { accept: 'application/json' };
        if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
        if (body !== undefined) headers['content-type'] = 'application/json';
        let answer: Response;
        try {
          answer = await io.fetch(this.url(path), { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: io.signal });
        } catch (error) {
          throw new UploadRequestError(`${method} ${path}: ${error instanceof Error ? error.message : String(error)}`, 0);
        }
        if (!answer.ok) throw await responseError(answer, `${method} ${path}`);
        return answer;
      },
      {
        delayMs: this.options.retryDelayMs,
        signal: io.signal,
        onRetry: (failedTry, error) => io.stderr(`${error.message}; trying again (${failedTry + 1}/3)\n`),
      },
    );
    return (await response.json()) as T;
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }
}

export const segment = encodeURIComponent;
