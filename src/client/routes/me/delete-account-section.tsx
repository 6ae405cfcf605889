import { useLocation } from 'wouter';
import { me_danger_heading } from '../../paraglide/messages/me_danger_heading.js';
import { me_delete_button } from '../../paraglide/messages/me_delete_button.js';
import { me_delete_confirm_text } from '../../paraglide/messages/me_delete_confirm_text.js';
import { me_delete_text } from '../../paraglide/messages/me_delete_text.js';
import { me_delete_title } from '../../paraglide/messages/me_delete_title.js';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { trpc } from '../../lib/trpc.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { me_danger_heading, me_delete_button, me_delete_confirm_text, me_delete_text, me_delete_title };

export function DeleteAccountSection() {
  const dialogs = useDialogs();
  const auth = useAuth();
  const [, navigate] = useLocation();
  const remove = trpc.users.delete.useMutation();
  const startDelete = async () => {
    const confirmed = await dialogs.confirm({
      title: m.me_delete_title(),
      message: m.me_delete_confirm_text({ name: auth.user?.title ?? '' }),
      confirmLabel: m.me_delete_button(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    const deleted = await dialogs.attempt(() => remove.mutateAsync());
    if (!deleted) return;
    auth.forget();
    navigate('/');
  };
  return (
    <section className="section section_danger" aria-labelledby="me-delete">
      <h2 id="me-delete">{m.me_danger_heading()}</h2>
      <p>{m.me_delete_text()}</p>
      <div className="actions">
        <button type="button" className="button button_danger" onClick={() => void startDelete()}>
          {m.me_delete_button()}
        </button>
      </div>
    </section>
  );
}
