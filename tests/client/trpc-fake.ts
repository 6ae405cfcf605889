import { isHandwritten, type Binding, type BoundOperation } from '../../src/server/operations/binding.ts';
import { trpcInputOf } from '../../src/server/operations/inputs.ts';
import { operationList } from '../../src/server/operations/operations.ts';
import type { AnyRoute } from '../../src/shared/api/route.ts';

/**
 * Client tests that answer some calls themselves (a refusal the real server would not give, a provider's
 * reply) while the rest go to the test server. The client's React screens call tRPC; a fake reads each
 * call as the REST call of the same operation (method, path, query, body: the route table's row), so it
 * names what it answers the way the API documents it.
 */
export type RestCall = { procedure: string; method: string; path: string; query: Record<string, unknown>; body: unknown };
/** A reply as REST would send it: the JSON, and for a refusal its status with { code, message, details }. */
export type RestAnswer = { status?: number; json: unknown } | undefined;

function operationOf(procedure: string): BoundOperation {
  const found = operationList().find((operation) => operation.name === procedure);
  if (!found) throw new Error(`no operation ${procedure}`);
  return found;
}

/** A tRPC call as the REST call of its operation. */
function restCallOf(procedure: string, input: unknown): RestCall {
  const { route, binding } = operationOf(procedure);
  // The hand-written session doors take their query (or body) as the whole input.
  const split = isHandwritten(binding) ? { params: {}, query: input ?? {}, body: undefined } : trpcInputOf(route, binding as Binding<AnyRoute>).split(input);
  const params = split.params as Record<string, unknown>;
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
  return { procedure, method: route.method, path, query: (split.query ?? {}) as Record<string, unknown>, body: split.body };
}

/** One item of a batch's reply: the result, or the error as the server formats it (src/server/trpc/init.ts). */
function trpcItem(procedure: string, answer: NonNullable<RestAnswer>): unknown {
  const status = answer.status ?? 200;
  if (status < 400) return { result: { data: answer.json } };
  const { code, message, details } = answer.json as { code: string; message?: string; details?: unknown };
  return { error: { message: message ?? code, code: -32600, data: { code, httpStatus: status, path: procedure, ...(details === undefined ? {} : { details }) } } };
}

/**
 * The reply to a /trpc request when `answer` takes one of its calls, else undefined (send it on). Calls of
 * the batch it does not take go one by one through `forward` (the test's own fetch), in their place.
 */
export async function answerTrpc(
  url: URL,
  init: RequestInit | undefined,
  answer: (call: RestCall) => RestAnswer,
  forward: (input: string, init: RequestInit) => Promise<Response>,
): Promise<Response | undefined> {
  if (!url.pathname.startsWith('/trpc/')) return undefined;
  const procedures = url.pathname.slice('/trpc/'.length).split(',');
  const method = (init?.method ?? 'GET').toUpperCase();
  const batch = url.searchParams.get('batch') === '1';
  const sent = method === 'GET' ? url.searchParams.get('input') : typeof init?.body === 'string' ? init.body : null;
  const parsed = sent ? (JSON.parse(sent) as Record<string, unknown>) : {};
  const inputs = procedures.map((_, index) => (batch ? parsed[String(index)] : parsed));
  const answers = procedures.map((procedure, index) => answer(restCallOf(procedure, inputs[index])));
  if (answers.every((item) => item === undefined)) return undefined;
  const items = await Promise.all(
    procedures.map(async (procedure, index) => {
      const given = answers[index];
      if (given) return trpcItem(procedure, given);
      const one = JSON.stringify({ 0: inputs[index] });
      const single = `${url.origin}/trpc/${procedure}?batch=1${method === 'GET' ? `&input=${encodeURIComponent(one)}` : ''}`;
      const response = await forward(single, { method, headers: init?.headers, ...(method === 'GET' ? {} : { body: one }) });
      return ((await response.json()) as unknown[])[0];
    }),
  );
  const failed = items.some((item) => (item as { error?: unknown }).error !== undefined);
  return Response.json(batch ? items : items[0], { status: failed ? (items.length > 1 ? 207 : ((items[0] as { error: { data: { httpStatus: number } } }).error.data.httpStatus)) : 200 });
}
