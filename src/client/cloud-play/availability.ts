import { trpc } from '../lib/trpc.ts';

/** How often a page that offers Play in cloud asks again whether a machine is online. */
const availabilityPollMs = 15_000;

/**
 * Whether a host machine is online to take a session now (cloudPlay.availability: a yes or no for any
 * caller); undefined while not asked (`enabled` false), not answered yet, or when the call failed: the
 * create call says so itself then (no_machine_online). Asked again every availabilityPollMs and when
 * the window regains focus, so Play in cloud appears once a machine comes online.
 */
export function useMachineOnline(enabled: boolean): boolean | undefined {
  const query = trpc.cloudPlay.availability.useQuery(undefined, {
    enabled,
    // Asked again whenever a page asks (a session that just ended, a create refused): one small call.
    staleTime: 0,
    refetchInterval: enabled ? availabilityPollMs : false,
    refetchOnWindowFocus: true,
    retry: 1,
  });
  return enabled ? query.data?.machineOnline : undefined;
}
