import { z } from 'zod';

/**
 * The local companion app's protocol (spec §7 "Local helper", §3 Local workdir / Workspace / Transition
 * progress): `POST http://127.0.0.1:17303/?method={method}` with a JSON body; the reply is JSON. A
 * failure answers a non-2xx status with a `LocalHelperFailure` body, which the page's client throws.
 * Field names are the spec's (snake_case). Used by the helper (src/helper) and the page
 * (src/shared/local/helper-client.ts).
 */

/** Spec §9. */
export const LOCAL_HELPER_PORT = 17303;
/** Spec §9: the page asks transition_status this often while it returns a value. */
export const LOCAL_HELPER_POLL_MS = 1000;
/** The protocol's version; the page refuses a helper whose major differs. */
export const LOCAL_HELPER_PROTOCOL = 1;

const id = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/);
/** A record id of the server (project, branch, version, package). */
const serverId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/);
const title = z.string().max(500);
/** A file name (never a path): one name, no separators, no NUL, not . or .. . */
export const localFileNameSchema = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => !/[/\\\u0000-\u001f]/.test(name) && name !== '.' && name !== '..' && name.trim() === name, 'a file name, not a path');

const workspaceSchema = z.object({ id, local_path: z.string() });
export type Workspace = z.infer<typeof workspaceSchema>;

/** What is installed in a workdir (set by workdir_transition). */
export const workdirPackageSchema = z.object({
  project_id: serverId,
  branch_id: serverId,
  version_id: serverId,
  package_id: serverId,
  project_title: title,
  branch_title: title,
  version_title: title,
  package_title: title,
});

/**
 * A workdir: a folder in a workspace holding one package. The four ids and titles are absent until a
 * package was installed. state: empty (added, nothing installed), installing (a transition is running
 * or was interrupted: the old files are still launchable when there were any), installed, damaged
 * (repair found problems it could not fix, or the last transition failed before anything was installed).
 */
export const workdirStates = ['empty', 'installing', 'installed', 'damaged'] as const;

export const workdirSchema = workdirPackageSchema.partial().extend({
  id,
  workspace_id: id,
  local_path: z.string(),
  state: z.enum(workdirStates),
  /** Bytes of the installed files (0 when empty). */
  size: z.number(),
  /** The installed package's entrypoint, as path parts (empty when none). */
  entrypoint: z.array(z.string()),
  /** The last transition's failure, for the page to show. */
  error: z.string().optional(),
  /** The failure's code when it has one: cancelled, interrupted, download_failed (the signed URL expired: ask for a new one), unexpected_error. */
  error_code: z.string().optional(),
  /** A launched game still running (its process group). */
  running: z.boolean(),
});
export type Workdir = z.infer<typeof workdirSchema>;

/** Spec §3: bytes done of total for one workdir's running transition (install, update or repair). */
const transitionProgressSchema = z.object({ workdir: id, done: z.number(), total: z.number() });
export type TransitionProgress = z.infer<typeof transitionProgressSchema>;

export const versionReplySchema = z.object({
  name: z.literal('cartridge-helper'),
  version: z.string(),
  protocol: z.number(),
  platform: z.string(),
  arch: z.string(),
});
export type VersionReply = z.infer<typeof versionReplySchema>;

const emptyInput = z.object({}).strict();
const workdirRefInput = z.object({ id }).strict();
const transitionStatusInput = z.object({ id: id.optional() }).strict();
const workdirAddInput = z.object({ workspace: id, name: localFileNameSchema }).strict();
const workdirAddReply = z.object({ id });
const workdirTransitionInput = workdirPackageSchema
  .extend({
    id,
    /** A signed archive URL from GET .../download (the archive itself, not filter=index or zip). */
    package_url: z.string().url().max(4096),
    /**
     * Optional: the same package's signed index URL (GET .../download?filter=index). An update then
     * fetches only a delta of the index against the installed one (RFC 9842 dcz). Same origin rules as
     * package_url.
     */
    index_url: z.string().url().max(4096).optional(),
    package_size: z.number().int().min(0),
    package_entrypoint: z.array(localFileNameSchema).max(64),
  })
  .strict();
/** package_url: a fresh signed URL of the installed package; without it the helper uses the last one workdir_transition was given (which may have expired). */
const workdirRepairInput = z.object({ id, package_url: z.string().url().max(4096).optional() }).strict();
const workdirDeleteInput = z.object({ id, deleteFiles: z.boolean().optional() }).strict();
const okReply = z.object({ ok: z.literal(true) });

/** Every method: its input and reply schema. */
export const localHelperMethods = {
  version: { input: emptyInput, reply: versionReplySchema },
  workspace_list: { input: emptyInput, reply: z.array(workspaceSchema) },
  workdir_list: { input: emptyInput, reply: z.array(workdirSchema) },
  /** The running transition of `id` (or of any workdir when absent); null when none runs. */
  transition_status: { input: transitionStatusInput, reply: transitionProgressSchema.nullable() },
  workdir_add: { input: workdirAddInput, reply: workdirAddReply },
  /** Starts making the workdir equal to the package (install or update) and answers at once; progress by transition_status. */
  workdir_transition: { input: workdirTransitionInput, reply: okReply },
  /** Stops a running transition; the workdir keeps its old files (resumable later). */
  workdir_cancel: { input: workdirRefInput, reply: okReply },
  workdir_launch: { input: workdirRefInput, reply: z.object({ ok: z.literal(true), pid: z.number() }) },
  /** Starts re-checking every file against the receipt and re-fetching damaged chunks; progress by transition_status. */
  workdir_repair: { input: workdirRepairInput, reply: okReply },
  workdir_delete: { input: workdirDeleteInput, reply: okReply },
  workdir_show_folder: { input: workdirRefInput, reply: okReply },
} as const;
export type LocalHelperMethod = keyof typeof localHelperMethods;
export type LocalHelperInput<M extends LocalHelperMethod> = z.input<(typeof localHelperMethods)[M]['input']>;
export type LocalHelperReply<M extends LocalHelperMethod> = z.infer<(typeof localHelperMethods)[M]['reply']>;

/**
 * The helper's refusal codes. not_trusted: the page's origin was not trusted by the user (details.origin;
 * the message says the command to run). bad_host: a Host header other than loopback (DNS rebinding).
 * untrusted_url: package_url or index_url outside the trusted origins. bad_param: a body that fails its schema.
 * unknown_method, not_found (workspace or workdir), busy (a transition already runs on that workdir),
 * not_installed (launch/repair before install), bad_entrypoint (missing or leaving the workdir),
 * download_failed, unexpected_error.
 */
const localHelperErrorCodes = [
  'not_trusted',
  'bad_host',
  'bad_origin',
  'untrusted_url',
  'bad_param',
  'unknown_method',
  'method_not_allowed',
  'not_found',
  'name_conflict',
  'busy',
  'not_installed',
  'bad_entrypoint',
  'download_failed',
  'unexpected_error',
] as const;
export type LocalHelperErrorCode = (typeof localHelperErrorCodes)[number];

export const localHelperFailureSchema = z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() });
export type LocalHelperFailure = z.infer<typeof localHelperFailureSchema>;

/** The helper program's platforms the server may offer for download (GET /api/local-app/{platform}). */
export const localAppPlatforms = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'windows-x64'] as const;
export type LocalAppPlatform = (typeof localAppPlatforms)[number];
const localAppDownloadSchema = z.object({
  platform: z.enum(localAppPlatforms),
  fileName: z.string(),
  size: z.number(),
  url: z.string(),
});
export const localAppDownloadsSchema = z.object({ downloads: z.array(localAppDownloadSchema) });
export type LocalAppDownloads = z.infer<typeof localAppDownloadsSchema>;
