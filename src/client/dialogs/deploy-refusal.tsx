import type { ReactNode } from 'react';
import { deploy_credential_steam_unsupported } from '../../shared/i18n/paraglide/messages/deploy_credential_steam_unsupported.js';
import { deploy_dialog_butler_missing } from '../../shared/i18n/paraglide/messages/deploy_dialog_butler_missing.js';
import { deploy_dialog_channel_busy } from '../../shared/i18n/paraglide/messages/deploy_dialog_channel_busy.js';
import { deploy_no_packages } from '../../shared/i18n/paraglide/messages/deploy_no_packages.js';
import { deploy_shared_channel } from '../../shared/i18n/paraglide/messages/deploy_shared_channel.js';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { DeployChannel } from '../components/deploy-job.tsx';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { rich, slot } from '../lib/i18n/rich.tsx';
import type { DeployProblem } from '../../shared/schemas/deploy.ts';
import { refusalReasonOf } from '../../shared/refusal-reasons.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  deploy_credential_steam_unsupported,
  deploy_dialog_butler_missing,
  deploy_dialog_channel_busy,
  deploy_no_packages,
  deploy_shared_channel,
  dialog_error_message,
};

/** Why the site cannot take a deploy now, in the reader's language (the server's sentence for a problem this client does not know). */
export function problemText(problem: DeployProblem, serverText: string | null): string | undefined {
  if (problem === 'butler_missing') return m.deploy_dialog_butler_missing();
  if (problem === 'steam_not_supported') return m.deploy_credential_steam_unsupported();
  return problem ? (serverText ?? problem) : undefined;
}

/** The spec §5 refusal of two or more packages on one channel, with its count and channel in place. */
export function sharedChannelText(count: number, channel: string): ReactNode {
  return rich(m.deploy_shared_channel({ count: String(count), channel: slot('channel') }), { channel: <DeployChannel channel={channel} /> });
}

/**
 * The server's refusal of a deploy in words, by its details.reason (src/shared/refusal-reasons.ts): the
 * §5 refusals (no packages; a shared channel, with details.count and details.channel), butler missing
 * or Steam as the site's problem, a channel busy with another package; anything else as the catalogued
 * 'Error: …'. The server's English message is never read.
 */
export function deployRefusalText(failure: unknown): ReactNode {
  const shown = toDisplayError(failure);
  switch (refusalReasonOf(shown.details)) {
    case 'no_packages':
      return m.deploy_no_packages();
    case 'shared_channel': {
      const { count, channel } = shown.details as { count?: unknown; channel?: unknown };
      if (typeof count === 'number' && typeof channel === 'string') return sharedChannelText(count, channel);
      break;
    }
    case 'butler_missing':
      return problemText('butler_missing', null);
    case 'steam_not_supported':
      return problemText('steam_not_supported', null);
    case 'channel_busy':
      return m.deploy_dialog_channel_busy();
  }
  return m.dialog_error_message({ text: errorText(shown) });
}
