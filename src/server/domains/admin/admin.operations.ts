import { z } from 'zod';
import { routes } from '../../../shared/api/routes.ts';
import { startedJobSchema } from '../../../shared/schemas/jobs.ts';
import { quotasSchema, setProjectQuotasInput } from '../../../shared/schemas/projects.ts';
import { adminPrivilegeInput, meSchema } from '../../../shared/schemas/users.ts';
import { bindOperations } from '../../operations/binding.ts';
import { startContentImageOptimisation } from '../content-images/optimize.service.ts';
import { setProjectQuotas } from '../projects/projects.service.ts';
import { grantPrivilege, listUsers, revokePrivilege } from './privileges.service.ts';

/** Instance administrators only: anyone else is refused. */
const admins = ['wrong_auth', 'unauthorized', 'insufficient_privileges'] as const;

export const adminOperations = bindOperations('Admin', routes.admin, {
  users: { reply: z.array(meSchema), summary: 'Every user with their privileges', errors: admins, run: ({ deps, actor }) => listUsers(deps, actor) },
  grantPrivilege: {
    body: adminPrivilegeInput,
    reply: meSchema,
    summary: 'Grant a user (id or sign-in name) a privilege',
    errors: [...admins, 'not_found'],
    run: ({ deps, actor, body }) => grantPrivilege(deps, actor, body),
  },
  revokePrivilege: {
    body: adminPrivilegeInput,
    reply: meSchema,
    summary: 'Revoke a privilege of a user (id or sign-in name)',
    errors: [...admins, 'not_found'],
    run: ({ deps, actor, body }) => revokePrivilege(deps, actor, body),
  },
  setProjectQuotas: {
    body: setProjectQuotasInput,
    reply: quotasSchema,
    summary: "Override a project's quotas: a number (0 = no limit) or null for the instance default",
    errors: [...admins, 'not_found'],
    run: ({ deps, actor, body }) => setProjectQuotas(deps, actor, body),
  },
  optimizeContentImages: {
    reply: startedJobSchema,
    summary: 'Queue the job re-encoding every content image (others: not_found); follow it with jobs.state',
    errors: ['wrong_auth', 'not_found'],
    run: ({ deps, actor }) => startContentImageOptimisation(deps, actor),
  },
});
