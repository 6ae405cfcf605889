import { dialog_error_message } from '../../../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { package_cloud_play_reason_agent_error } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_agent_error.js';
import { package_cloud_play_reason_bad_offer } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_bad_offer.js';
import { package_cloud_play_reason_connection_lost } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_connection_lost.js';
import { package_cloud_play_reason_ended } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_ended.js';
import { package_cloud_play_reason_game_exited } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_game_exited.js';
import { package_cloud_play_reason_idle } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_idle.js';
import { package_cloud_play_reason_machine_lost } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_machine_lost.js';
import { package_cloud_play_reason_machine_shutdown } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_machine_shutdown.js';
import { package_cloud_play_reason_peer_left } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_peer_left.js';
import { package_cloud_play_reason_no_machine } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_no_machine.js';
import { package_cloud_play_reason_no_machine_online } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_no_machine_online.js';
import { package_cloud_play_reason_not_connected } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_not_connected.js';
import { package_cloud_play_reason_other } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_other.js';
import { package_cloud_play_reason_replaced } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_replaced.js';
import { package_cloud_play_reason_revoked } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_revoked.js';
import { package_cloud_play_reason_stopped } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_stopped.js';
import { package_cloud_play_reason_time_limit } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_reason_time_limit.js';
import { package_cloud_play_status_awaiting_machine } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_status_awaiting_machine.js';
import { package_cloud_play_status_connecting } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_status_connecting.js';
import { package_cloud_play_status_creating_session } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_status_creating_session.js';
import { package_cloud_play_status_error } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_status_error.js';
import { package_cloud_play_status_not_started } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_status_not_started.js';
import { package_cloud_play_status_playing } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_status_playing.js';
import type { CloudPlayState } from '../../../../shared/schemas/cloud-play.ts';
import type { CloudPlayStatus } from '../../../cloud-play/machine.ts';
import { errorText } from '../../../lib/errors.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  dialog_error_message,
  package_cloud_play_reason_agent_error,
  package_cloud_play_reason_bad_offer,
  package_cloud_play_reason_connection_lost,
  package_cloud_play_reason_ended,
  package_cloud_play_reason_game_exited,
  package_cloud_play_reason_idle,
  package_cloud_play_reason_machine_lost,
  package_cloud_play_reason_machine_shutdown,
  package_cloud_play_reason_no_machine,
  package_cloud_play_reason_no_machine_online,
  package_cloud_play_reason_peer_left,
  package_cloud_play_reason_not_connected,
  package_cloud_play_reason_other,
  package_cloud_play_reason_replaced,
  package_cloud_play_reason_revoked,
  package_cloud_play_reason_stopped,
  package_cloud_play_reason_time_limit,
};

/** Spec §4: the note of each state, from the messages packages.cloud_play.status.{state}. */
const statusTexts: Record<CloudPlayState, () => string> = {
  not_started: package_cloud_play_status_not_started,
  creating_session: package_cloud_play_status_creating_session,
  awaiting_machine: package_cloud_play_status_awaiting_machine,
  connecting: package_cloud_play_status_connecting,
  playing: package_cloud_play_status_playing,
  error: package_cloud_play_status_error,
};

export function statusText(state: CloudPlayState): string {
  return statusTexts[state]();
}

/**
 * Why a session ended, by the words of the session state's reason (the server's, the host agent's
 * (cloudhost/src/lifecycle.ts endReasons), and the page's own connection_lost and no_machine_online,
 * a create refused because no machine is online). Listed one by one so the bundler keeps only these.
 */
const reasonTexts: Record<string, () => string> = {
  stopped: m.package_cloud_play_reason_stopped,
  replaced: m.package_cloud_play_reason_replaced,
  game_exited: m.package_cloud_play_reason_game_exited,
  idle: m.package_cloud_play_reason_idle,
  time_limit: m.package_cloud_play_reason_time_limit,
  not_connected: m.package_cloud_play_reason_not_connected,
  connection_lost: m.package_cloud_play_reason_connection_lost,
  machine_lost: m.package_cloud_play_reason_machine_lost,
  machine_shutdown: m.package_cloud_play_reason_machine_shutdown,
  peer_left: m.package_cloud_play_reason_peer_left,
  machine_revoked: m.package_cloud_play_reason_revoked,
  no_machine: m.package_cloud_play_reason_no_machine,
  no_machine_online: m.package_cloud_play_reason_no_machine_online,
  bad_offer: m.package_cloud_play_reason_bad_offer,
  agent_error: m.package_cloud_play_reason_agent_error,
  ended: m.package_cloud_play_reason_ended,
};

/** The text of an end reason; one the page does not know (an agent's error text) is shown as it came. */
function reasonText(reason: string): string {
  const known = Object.hasOwn(reasonTexts, reason) ? reasonTexts[reason] : undefined;
  return known ? known() : m.package_cloud_play_reason_other({ reason });
}

/** What the footer says besides the state's note: why the last session ended, or the error. */
export function detailText(status: CloudPlayStatus): string | undefined {
  if (status.state === 'not_started') return status.ended ? reasonText(status.ended) : undefined;
  if (status.state !== 'error') return undefined;
  if (status.reason) return reasonText(status.reason);
  if (status.failure) return m.dialog_error_message({ text: errorText(status.failure) });
  return undefined;
}
