import { Link, useLocation } from 'wouter';
import { store_actions_label } from '../../../shared/i18n/paraglide/messages/store_actions_label.js';
import { store_open_project } from '../../../shared/i18n/paraglide/messages/store_open_project.js';
import { store_report } from '../../../shared/i18n/paraglide/messages/store_report.js';
import { store_star } from '../../../shared/i18n/paraglide/messages/store_star.js';
import { store_star_sign_in } from '../../../shared/i18n/paraglide/messages/store_star_sign_in.js';
import { store_starred_note } from '../../../shared/i18n/paraglide/messages/store_starred_note.js';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { ReportContentDialog } from '../../dialogs/report-content-dialog.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { rememberReturnTo } from '../../lib/auth/return-to.ts';
import { useInstance } from '../../lib/instance.ts';
import { trpc } from '../../lib/trpc.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { projectHref, storeHref } from '../projects/links.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_actions_label, store_open_project, store_report, store_star, store_star_sign_in, store_starred_note };

/** Star, report content and, for members, the way into the project itself. */
export function StoreActions({ project }: { project: Pick<StoreProject, 'id' | 'title'> }) {
  const auth = useAuth();
  const signedIn = auth.status === 'authenticated';
  return (
    <div className="store_actions">
      <div className="actions" role="group" aria-label={m.store_actions_label()}>
        {signedIn ? <StarToggle projectId={project.id} /> : <SignInToStar />}
        <ReportButton project={project} />
        {signedIn ? <OpenProjectLink projectId={project.id} /> : null}
      </div>
      {signedIn ? <StarredNote projectId={project.id} /> : null}
    </div>
  );
}

function StarToggle({ projectId }: { projectId: string }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const star = trpc.projects.star.get.useQuery({ project: projectId });
  const putStar = trpc.projects.star.put.useMutation();
  const starred = star.data === true;
  const busy = star.isPending || putStar.isPending;
  const toggle = async () => {
    if (busy) return;
    const next = !starred;
    const result = await dialogs.attempt(() => putStar.mutateAsync({ project: projectId, starred: next }));
    if (result === undefined) return;
    utils.projects.star.get.setData({ project: projectId }, result);
    // A starred public project is listed among the user's projects with the role 'starred'.
    await Promise.all([utils.projects.mine.invalidate(), utils.projects.get.invalidate({ project: projectId })]);
  };
  return (
    <button type="button" className="button store_star" aria-pressed={starred} aria-disabled={busy ? true : undefined} onClick={() => void toggle()}>
      <span aria-hidden="true" className="store_star_icon">
        {starred ? '★' : '☆'}
      </span>
      {m.store_star()}
    </button>
  );
}

function StarredNote({ projectId }: { projectId: string }) {
  const star = trpc.projects.star.get.useQuery({ project: projectId });
  return (
    <p className="field_hint store_starred_note" role="status">
      {star.data === true ? m.store_starred_note() : ''}
    </p>
  );
}

/** Visitors are sent to sign in and come back here afterwards. */
function SignInToStar() {
  const [, navigate] = useLocation();
  return (
    <button
      type="button"
      className="button store_star"
      onClick={() => {
        rememberReturnTo();
        navigate('/login');
      }}
    >
      <span aria-hidden="true" className="store_star_icon">
        ☆
      </span>
      {m.store_star_sign_in()}
    </button>
  );
}

function ReportButton({ project }: { project: Pick<StoreProject, 'id' | 'title'> }) {
  const dialogs = useDialogs();
  const { reportEmail } = useInstance();
  const open = () =>
    void dialogs.open<void>((close) => (
      <ReportContentDialog
        target={{ projectTitle: project.title, url: new URL(storeHref(project.id), location.origin).href }}
        recipient={reportEmail ?? null}
        onClose={() => close()}
      />
    ));
  return (
    <button type="button" className="button button_quiet store_report" onClick={open}>
      {m.store_report()}
    </button>
  );
}

/** Members (approved, any role) reach the project's own pages; starring does not make one a member. */
function OpenProjectLink({ projectId }: { projectId: string }) {
  const project = trpc.projects.get.useQuery({ project: projectId }, { retry: false });
  const role = project.data?.userRole;
  if (!role || role === 'starred') return null;
  return (
    <Link href={projectHref(projectId)} className="button button_primary">
      {m.store_open_project()}
    </Link>
  );
}
