import { adminPrivilegeInput } from '../../../shared/schemas/users.ts';
import { procedure, router } from '../../trpc/init.ts';
import { setProjectQuotasInput } from '../../../shared/schemas/projects.ts';
import { setProjectQuotas } from '../projects/projects.service.ts';
import { grantPrivilege, listUsers, revokePrivilege } from './privileges.service.ts';
import { cloudMachinesAdminRouter } from '../cloud-play/cloud-play.trpc.ts';
import { startContentImageOptimisation } from '../content-images/optimize.service.ts';

export const adminRouter = router({
  users: procedure.query(({ ctx }) => listUsers(ctx.deps, ctx.actor)),
  grantPrivilege: procedure.input(adminPrivilegeInput).mutation(({ ctx, input }) => grantPrivilege(ctx.deps, ctx.actor, input)),
  revokePrivilege: procedure.input(adminPrivilegeInput).mutation(({ ctx, input }) => revokePrivilege(ctx.deps, ctx.actor, input)),
  /** Per-project quota overrides: a number (0 = no limit) or null for the instance default. */
  setProjectQuotas: procedure.input(setProjectQuotasInput).mutation(({ ctx, input }) => setProjectQuotas(ctx.deps, ctx.actor, input)),
  /** Cloud-play host machines: list, create (the token is shown once), revoke. */
  cloudMachines: cloudMachinesAdminRouter,
  /** POST /admin/maintenance/optimize-content-images: the job re-encoding every content image (others: not_found). */
  optimizeContentImages: procedure.mutation(({ ctx }) => startContentImageOptimisation(ctx.deps, ctx.actor)),
});
