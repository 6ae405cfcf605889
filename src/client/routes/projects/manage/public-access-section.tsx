import { useId, useState } from 'react';
import { Link } from 'wouter';
import { manage_private_confirm } from '../../../../shared/i18n/paraglide/messages/manage_private_confirm.js';
import { manage_private_text } from '../../../../shared/i18n/paraglide/messages/manage_private_text.js';
import { manage_private_title } from '../../../../shared/i18n/paraglide/messages/manage_private_title.js';
import { manage_public_heading } from '../../../../shared/i18n/paraglide/messages/manage_public_heading.js';
import { manage_public_hint } from '../../../../shared/i18n/paraglide/messages/manage_public_hint.js';
import { manage_public_needs_privilege } from '../../../../shared/i18n/paraglide/messages/manage_public_needs_privilege.js';
import { manage_public_store_link } from '../../../../shared/i18n/paraglide/messages/manage_public_store_link.js';
import { manage_public_toggle } from '../../../../shared/i18n/paraglide/messages/manage_public_toggle.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { useAuth } from '../../../lib/auth/auth.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { storeHref } from '../links.ts';
import { useProjectRefresh } from './use-project-refresh.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_private_confirm, manage_private_text, manage_private_title, manage_public_heading, manage_public_hint, manage_public_needs_privilege, manage_public_store_link, manage_public_toggle };

/**
 * The project's public flag (patchProject). Spec §5, as the server enforces it: making a private
 * project public also needs the session privilege store_publish; a public project can always be made
 * private again by whoever may patch it.
 */
export function PublicAccessSection({ project }: { project: Project }) {
  const dialogs = useDialogs();
  const auth = useAuth();
  const utils = trpc.useUtils();
  const refresh = useProjectRefresh(project.id);
  const patch = trpc.projects.patch.useMutation();
  const ids = { hint: useId(), why: useId() };
  const mayPublish = auth.session?.userPrivileges.includes('store_publish') ?? false;
  const canToggle = project.isPublic || mayPublish;
  // The value being saved shows at once; a failure puts the project's own value back.
  const [saving, setSaving] = useState<boolean | undefined>();

  const toggle = async (isPublic: boolean) => {
    if (!isPublic) {
      const confirmed = await dialogs.confirm({
        title: m.manage_private_title(),
        message: m.manage_private_text(),
        confirmLabel: m.manage_private_confirm(),
        danger: true,
        defaultFocus: 'cancel',
      });
      if (!confirmed) return;
    }
    setSaving(isPublic);
    const updated = await dialogs.attempt(() => patch.mutateAsync({ project: project.id, isPublic }));
    if (updated) utils.projects.get.setData({ project: project.id }, updated);
    setSaving(undefined);
    if (updated) await refresh.project();
  };

  return (
    <section className="section" aria-labelledby="manage-public">
      <h2 id="manage-public">{m.manage_public_heading()}</h2>
      <div className="field">
        <label className="choice">
          <input
            type="checkbox"
            checked={saving ?? project.isPublic}
            disabled={!canToggle}
            aria-busy={saving !== undefined ? true : undefined}
            aria-describedby={canToggle ? ids.hint : `${ids.hint} ${ids.why}`}
            onChange={(event) => {
              if (saving === undefined) void toggle(event.currentTarget.checked);
            }}
          />{' '}
          {m.manage_public_toggle()}
        </label>
        <p id={ids.hint} className="field_hint">
          {m.manage_public_hint()}
        </p>
      </div>
      {canToggle ? null : (
        <p id={ids.why} className="notice manage_public_why">
          {m.manage_public_needs_privilege()}
        </p>
      )}
      {project.isPublic ? (
        <p>
          <Link href={storeHref(project.id)}>{m.manage_public_store_link()}</Link>
        </p>
      ) : null}
    </section>
  );
}
