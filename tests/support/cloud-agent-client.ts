import type { MachineProvideReply, MachineSessionReport, MachineWork } from '../../src/shared/schemas/cloud-play.ts';

/**
 * A scripted host agent: speaks the provide protocol over plain HTTP (the real agent, cloudhost/, needs
 * Xvfb and ffmpeg and is tested on its own). It reports what the test sets with report() and hands
 * back the server's replies; nothing happens unless the test says so.
 */
export type CloudAgentClient = {
  readonly token: string;
  capacity: number;
  agentVersion: string;
  /** What the next provide call reports, by session id. */
  readonly reports: Map<string, MachineSessionReport>;
  /** Sets (or with state undefined removes) the report of a session. */
  report(session: string, state: MachineSessionReport['state'] | undefined, extra?: { offer?: string; reason?: string }): void;
  /** One provide call; throws with the status and body unless it answers 200. */
  provide(options?: { wait?: boolean; signal?: AbortSignal }): Promise<MachineProvideReply>;
  /** One provide call as it came (refusals are tested with it). */
  provideRaw(options?: { wait?: boolean; body?: unknown; token?: string | null }): Promise<Response>;
  /** Provide calls (without wait) until one answers some work, or the deadline. */
  provideUntilWork(timeoutMs?: number): Promise<MachineWork[]>;
  /** GET /internal/access/... for a start item's package reference. */
  access(ref: { project: string; branch: string; version: string; package: string }, token?: string | null): Promise<Response>;
};

export const offerText = (label = 'agent') => JSON.stringify({ type: 'offer', sdp: `v=0\r\no=- ${label} 2 IN IP4 127.0.0.1\r\ns=-\r\n` });

export function createCloudAgentClient(baseUrl: string, token: string, options: { capacity?: number; agentVersion?: string } = {}): CloudAgentClient {
  const reports = new Map<string, MachineSessionReport>();
  const base = baseUrl.replace(/\/+$/, '');
  const headersOf = (bearer: string | null | undefined) => ({
    'content-type': 'application/json',
    ...(bearer === null ? {} : { authorization: `Bearer ${bearer ?? token}` }),
  });
  const agent: CloudAgentClient = {
    token,
    capacity: options.capacity ?? 1,
    agentVersion: options.agentVersion ?? 'test-agent/1',
    reports,
    report(session, state, extra = {}) {
      if (state === undefined) reports.delete(session);
      else reports.set(session, { session, state, ...extra });
    },
    provideRaw({ wait = false, body, token: bearer } = {}) {
      const payload = body ?? { capacity: agent.capacity, agentVersion: agent.agentVersion, sessions: [...reports.values()], wait };
      return fetch(`${base}/api/cloud-play/machine/provide`, { method: 'POST', headers: headersOf(bearer), body: JSON.stringify(payload) });
    },
    async provide({ wait = false, signal } = {}) {
      const response = await fetch(`${base}/api/cloud-play/machine/provide`, {
        method: 'POST',
        headers: headersOf(undefined),
        body: JSON.stringify({ capacity: agent.capacity, agentVersion: agent.agentVersion, sessions: [...reports.values()], wait }),
        signal,
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`provide: ${response.status} ${text}`);
      return JSON.parse(text) as MachineProvideReply;
    },
    async provideUntilWork(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { work } = await agent.provide();
        if (work.length > 0 || Date.now() > deadline) return work;
        await Bun.sleep(20);
      }
    },
    access(ref, bearer) {
      const path = `/api/internal/access/projects/${ref.project}/branches/${ref.branch}/versions/${ref.version}/packages/${ref.package}`;
      return fetch(`${base}${path}`, { headers: bearer === null ? {} : { authorization: `Bearer ${bearer ?? token}` } });
    },
  };
  return agent;
}
