import { useLocation } from 'wouter';
import { me_danger_heading } from '../../../shared/i18n/paraglide/messages/me_danger_heading.js';
import { me_delete_blocked_title } from '../../../shared/i18n/paraglide/messages/me_delete_blocked_title.js';
import { me_delete_button } from '../../../shared/i18n/paraglide/messages/me_delete_button.js';
import { me_delete_confirm_text } from '../../../shared/i18n/paraglide/messages/me_delete_confirm_text.js';
import { me_delete_text } from '../../../shared/i18n/paraglide/messages/me_delete_text.js';
import { me_delete_title } from '../../../shared/i18n/paraglide/messages/me_delete_title.js';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import { trpc } from '../../lib/trpc.ts';
import { OwnedProjects, ownedProjectsOf } from './owned-projects.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { me_danger_heading, me_delete_blocked_title, me_delete_button, me_delete_confirm_text, me_delete_text, me_delete_title };

/**
 * Delete account. The server refuses while the user owns projects (a team's work is never deleted as a
 * side effect), so those are loaded first and listed, with what to do, instead of a button that can
 * only fail; a refusal anyway (a project made meanwhile) shows the list the server names, no Retry.
 */
export function DeleteAccountSection() {
  const dialogs = useDialogs();
  const auth = useAuth();
  const [, navigate] = useLocation();
  const utils = trpc.useUtils();
  const mine = trpc.projects.mine.useQuery();
  const owned = mine.data?.filter((project) => project.userIsOwner);
  const remove = trpc.users.delete.useMutation();
  const deleteAccount = async (): Promise<boolean> => {
    for (;;) {
      try {
        await remove.mutateAsync();
        return true;
      } catch (error) {
        if (toDisplayError(error).code === 'not_empty') {
          void utils.projects.mine.invalidate();
          await dialogs.ok({ title: m.me_delete_blocked_title(), message: <OwnedProjects projects={ownedProjectsOf(error)} /> });
          return false;
        }
        if ((await dialogs.error(error, { retry: true })) === 'ok') return false;
      }
    }
  };
  const startDelete = async () => {
    const confirmed = await dialogs.confirm({
      title: m.me_delete_title(),
      message: m.me_delete_confirm_text({ name: auth.user?.title ?? '' }),
      confirmLabel: m.me_delete_button(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed || !(await deleteAccount())) return;
    auth.forget();
    navigate('/');
  };
  return (
    <section className="section section_danger" aria-labelledby="me-delete">
      <h2 id="me-delete">{m.me_danger_heading()}</h2>
      <p>{m.me_delete_text()}</p>
      {mine.error ? <ErrorState error={mine.error} onRetry={() => void mine.refetch()} /> : null}
      {!owned && !mine.error ? <LoadingState /> : null}
      {owned && owned.length > 0 ? <OwnedProjects projects={owned} /> : null}
      {owned && owned.length === 0 ? (
        <div className="actions">
          <button type="button" className="button button_danger" onClick={() => void startDelete()}>
            {m.me_delete_button()}
          </button>
        </div>
      ) : null}
    </section>
  );
}
