import type { SeededAccount } from './seed.ts';

/**
 * What a client does: one action per turn, drawn by weight; an action is one request or a short chain
 * (a project page's two tRPC batches, a download's signed URL then its ZIP, an upload's create, part
 * and finalize). Every request goes to the next process in turn (round robin per request, like a load
 * balancer with keep-alive connections to each process), so a chain's steps may land on different
 * processes: a signed URL made by one is downloaded from the other.
 */
export type KindName =
  | 'store page'
  | 'store index'
  | 'store html'
  | 'project frame'
  | 'project sections'
  | 'session token'
  | 'session cookie'
  | 'session trpc'
  | 'download url'
  | 'download zip'
  | 'upload create'
  | 'upload part'
  | 'upload finalize';

/** Request kinds with a latency goal (p99 ≤ 100 ms at 200 clients): store and session calls. */
export const goalKinds: ReadonlySet<KindName> = new Set<KindName>(['store page', 'store index', 'store html', 'session token', 'session cookie', 'session trpc']);

export type ActionName = 'store page' | 'store index' | 'store html' | 'project page' | 'session' | 'download' | 'upload';

/** weight: percent of actions; calls: the requests one action makes. */
export type Action = { name: ActionName; weight: number; calls: number; requests: string };

/** Weights in percent of actions. */
export const actions: readonly Action[] = [
  { name: 'store page', weight: 28, calls: 1, requests: 'GET /api/store/projects/{p} (visitor)' },
  { name: 'store index', weight: 12, calls: 1, requests: 'GET /api/store/projects (visitor)' },
  { name: 'store html', weight: 10, calls: 1, requests: 'GET /store/{p} (the page HTML)' },
  {
    name: 'project page',
    weight: 14,
    calls: 2,
    requests: 'GET /trpc/projects.get,projects.mine then /trpc/projects.branches.list,projects.versions.list,packages.list,projects.description.get,projects.media.get (owner, session bearer)',
  },
  { name: 'session', weight: 26, calls: 1, requests: 'GET /api/auth/session with an API token, or with the session cookie, or GET /trpc/auth.session with the session bearer (a third each)' },
  { name: 'download', weight: 9, calls: 2, requests: 'GET /api/store/projects/{p}/branches/{b}/packages/{k}/download?filter=zip, then the signed ZIP URL' },
  { name: 'upload', weight: 1, calls: 3, requests: 'POST /api/projects/{p}/packages, PUT one part, PUT …/finalize (API token, to a private project of the account)' },
];

/** What the generator needs to know of the seeded instance. */
export type MixData = { accounts: SeededAccount[] };

export function describeMix(): string {
  return actions.map((action) => `${action.weight}% ${action.name} (${action.requests})`).join('; ');
}
