import { projects_list_role_admin } from '../../../shared/i18n/paraglide/messages/projects_list_role_admin.js';
import { projects_list_role_developer } from '../../../shared/i18n/paraglide/messages/projects_list_role_developer.js';
import { projects_list_role_owner } from '../../../shared/i18n/paraglide/messages/projects_list_role_owner.js';
import { projects_list_role_starred } from '../../../shared/i18n/paraglide/messages/projects_list_role_starred.js';
import { projects_list_role_tester } from '../../../shared/i18n/paraglide/messages/projects_list_role_tester.js';
import type { ProjectUserRole } from '../../../shared/schemas/projects.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { projects_list_role_admin, projects_list_role_developer, projects_list_role_owner, projects_list_role_starred, projects_list_role_tester };

/** The caller's relation to a project as people read it: the owner flag outranks the role it carries. */
export function roleLabel(role: ProjectUserRole, isOwner: boolean): string {
  if (isOwner) return m.projects_list_role_owner();
  switch (role) {
    case 'tester':
      return m.projects_list_role_tester();
    case 'developer':
      return m.projects_list_role_developer();
    case 'admin':
      return m.projects_list_role_admin();
    case 'starred':
      return m.projects_list_role_starred();
  }
}
