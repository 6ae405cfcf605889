import { me_display_name } from '../../../shared/i18n/paraglide/messages/me_display_name.js';
import { me_member_since } from '../../../shared/i18n/paraglide/messages/me_member_since.js';
import { me_profile_heading } from '../../../shared/i18n/paraglide/messages/me_profile_heading.js';
import { me_rename } from '../../../shared/i18n/paraglide/messages/me_rename.js';
import { me_rename_label } from '../../../shared/i18n/paraglide/messages/me_rename_label.js';
import { me_rename_title } from '../../../shared/i18n/paraglide/messages/me_rename_title.js';
import { me_user_name } from '../../../shared/i18n/paraglide/messages/me_user_name.js';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { useLanguage } from '../../lib/i18n/index.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatDate } from '../../../shared/format/date.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { me_display_name, me_member_since, me_profile_heading, me_rename, me_rename_label, me_rename_title, me_user_name };

export function ProfileSection() {
  const dialogs = useDialogs();
  const auth = useAuth();
  const { language } = useLanguage();
  const utils = trpc.useUtils();
  const me = trpc.users.me.useQuery();
  const rename = trpc.users.rename.useMutation();

  const startRename = async () => {
    const title = await dialogs.prompt({ title: m.me_rename_title(), label: m.me_rename_label(), initialValue: me.data?.title ?? '', maxLength: 64, confirmLabel: m.me_rename() });
    if (title === null || title.trim() === me.data?.title) return;
    const renamed = await dialogs.attempt(() => rename.mutateAsync({ title: title.trim() }));
    if (!renamed) return;
    utils.users.me.setData(undefined, renamed);
    auth.updateUser({ id: renamed.id, title: renamed.title });
  };

  return (
    <section className="section" aria-labelledby="me-profile">
      <h2 id="me-profile">{m.me_profile_heading()}</h2>
      {me.isPending ? <LoadingState /> : null}
      {me.error ? <ErrorState error={me.error} onRetry={() => void me.refetch()} /> : null}
      {me.data ? (
        <>
          <dl className="facts">
            <div>
              <dt>{m.me_display_name()}</dt>
              <dd data-testid="profile-title">{me.data.title}</dd>
            </div>
            {me.data.name ? (
              <div>
                <dt>{m.me_user_name()}</dt>
                <dd>{me.data.name}</dd>
              </div>
            ) : null}
            <div>
              <dt>{m.me_member_since()}</dt>
              <dd>
                <time dateTime={me.data.created}>{formatDate(me.data.created, language)}</time>
              </dd>
            </div>
          </dl>
          <div className="actions">
            <button type="button" className="button" onClick={() => void startRename()}>
              {m.me_rename()}
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}
