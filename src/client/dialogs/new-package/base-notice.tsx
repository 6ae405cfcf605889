import { new_package_base_none } from '../../../shared/i18n/paraglide/messages/new_package_base_none.js';
import { new_package_base_update } from '../../../shared/i18n/paraglide/messages/new_package_base_update.js';
import type { BaseCandidate } from './base-choice.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { new_package_base_none, new_package_base_update };

/**
 * Which current package the new one updates (the one with the selected tags), or that none has them
 * and everything is uploaded. Nothing when the branch has no current package to update.
 */
export function BaseNotice({ candidates, base }: { candidates: readonly BaseCandidate[]; base: BaseCandidate | null }) {
  if (candidates.length === 0) return null;
  return (
    <p className="field_hint new_package_base" role="status" data-testid="new-package-base" data-base={base?.id ?? ''}>
      {base ? m.new_package_base_update({ title: base.title }) : m.new_package_base_none()}
    </p>
  );
}
