import { z } from 'zod';
import { localFileNameSchema, workdirPackageSchema, workdirStates } from '../../shared/schemas/local-helper.ts';

const id = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/);

const stateWorkspaceSchema = z.object({ id, local_path: z.string().min(1) }).strict();
export type StateWorkspace = z.infer<typeof stateWorkspaceSchema>;

/**
 * One workdir as the helper remembers it. `package` is the package the workdir holds or is becoming
 * (stored when a transition starts); `entrypoint`, `size` and `index_hash` describe the files actually
 * installed (the receipt's index hash), so an interrupted update still launches the old version.
 * `target` is what the running (or interrupted) transition installs; `package_url` the last signed URL,
 * kept for repair.
 */
const stateWorkdirSchema = z
  .object({
    id,
    workspace_id: id,
    name: localFileNameSchema,
    package: workdirPackageSchema.optional(),
    state: z.enum(workdirStates),
    entrypoint: z.array(localFileNameSchema).max(64),
    size: z.number().int().min(0),
    index_hash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    error: z.string().optional(),
    error_code: z.string().optional(),
    package_url: z.string().optional(),
    target: z.object({ entrypoint: z.array(localFileNameSchema).max(64), package_size: z.number().int().min(0) }).strict().optional(),
  })
  .strict();
export type StateWorkdir = z.infer<typeof stateWorkdirSchema>;

export const helperStateSchema = z
  .object({
    version: z.literal(1),
    workspaces: z.array(stateWorkspaceSchema),
    workdirs: z.array(stateWorkdirSchema),
    /** Origins (scheme://host[:port]) whose pages may call the helper; exact match. */
    trusted_origins: z.array(z.string()),
  })
  .strict();
export type HelperState = z.infer<typeof helperStateSchema>;

/** The id of the workspace a fresh state starts with. */
const defaultWorkspaceId = 'default';

export function initialState(defaultWorkspacePath: string): HelperState {
  return { version: 1, workspaces: [{ id: defaultWorkspaceId, local_path: defaultWorkspacePath }], workdirs: [], trusted_origins: [] };
}
