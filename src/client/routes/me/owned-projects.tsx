import { Link } from 'wouter';
import { me_delete_blocked_one } from '../../../shared/i18n/paraglide/messages/me_delete_blocked_one.js';
import { me_delete_blocked_other } from '../../../shared/i18n/paraglide/messages/me_delete_blocked_other.js';
import { pluralForm } from '../../../shared/format/plural.ts';
import { manageHref } from '../projects/links.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { me_delete_blocked_one, me_delete_blocked_other };

export type OwnedProject = { id: string; title: string };

/** The projects a not_empty refusal of DELETE /users/me names (details.projects), over tRPC or REST. */
export function ownedProjectsOf(error: unknown): OwnedProject[] {
  const holder = error as { data?: { details?: unknown }; details?: unknown } | null;
  const details = (holder?.data?.details ?? holder?.details) as { projects?: unknown } | undefined;
  if (!Array.isArray(details?.projects)) return [];
  return details.projects.filter((item): item is OwnedProject => typeof item?.id === 'string' && typeof item?.title === 'string');
}

/** Why the account cannot go yet and what to do: each owned project, linked to its settings (where it is deleted). */
export function OwnedProjects({ projects }: { projects: readonly OwnedProject[] }) {
  return (
    <div className="me_owned_projects" data-error-code="not_empty">
      <p>{pluralForm(projects.length) === 'one' ? m.me_delete_blocked_one() : m.me_delete_blocked_other()}</p>
      <ul className="me_owned_list" data-testid="me-owned-projects">
        {projects.map((project) => (
          <li key={project.id} data-project-id={project.id}>
            <Link href={manageHref(project.id)}>
              <bdi>{project.title}</bdi>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
