import { z } from 'zod';
import { storeTagsSchema } from './store-tags.ts';
import { multiLineText, recordIdSchema, singleLineText, tokenText, userRefSchema } from './text.ts';

/** Project roles, ranked low to high (spec §6); 'starred' is a non-member who starred a public project. */
export const projectRoleNames = ['tester', 'developer', 'admin'] as const;
export type ProjectRole = (typeof projectRoleNames)[number];
const projectRoleSchema = z.enum(projectRoleNames);
export type ProjectUserRole = ProjectRole | 'starred';

/** Spec §6 userPossibleActions. */
export const projectActionNames = [
  'patchProject',
  'createBranch',
  'patchBranch',
  'deleteBranch',
  'publishVersion',
  'patchVersion',
  'deleteVersion',
  'deployVersionToSite',
  'patchPackage',
  'deletePackage',
  'setUser',
  'createInvite',
  'createDeploySite',
  'deleteDeploySite',
  'leaveProject',
  'deleteProject',
] as const;
export type ProjectAction = (typeof projectActionNames)[number];

export const projectIdSchema = recordIdSchema;
const projectTitleSchema = singleLineText(1, 100);

export const createProjectInput = z.object({ title: projectTitleSchema });

/**
 * PATCH /projects/{project}: {title}, {isPublic} or {storeTags} (several at once are accepted too);
 * storeTags replaces the list (store-tags.ts).
 */
export const patchProjectInput = z
  .object({ title: projectTitleSchema.optional(), isPublic: z.boolean().optional(), storeTags: storeTagsSchema.optional() })
  .refine((input) => input.title !== undefined || input.isPublic !== undefined || input.storeTags !== undefined);
export type PatchProjectInput = z.input<typeof patchProjectInput>;

export const projectSchema = z.object({
  id: z.string(),
  title: z.string(),
  isPublic: z.boolean(),
  /** Genre and such (store-tags.ts), normalised, in the order set; shown on the store page. */
  storeTags: z.array(z.string()),
  userIsOwner: z.boolean(),
  userIsListed: z.boolean(),
  /** Joined through an invite that needs an admin's approval, not approved yet (no access as a member). */
  userIsPending: z.boolean(),
  userRole: z.enum([...projectRoleNames, 'starred']).nullable(),
  userPossibleActions: z.array(z.enum(projectActionNames)),
  created: z.string(),
});
export type Project = z.infer<typeof projectSchema>;

/** Bytes for packageSize; seconds for the times; null = no limit. */
export const quotasSchema = z.object({
  packageSize: z.number().nullable(),
  branchVersionsCount: z.number().nullable(),
  branchVersionsTime: z.number().nullable(),
  branchVersionsNonCurrentTime: z.number().nullable(),
});
export type Quotas = z.infer<typeof quotasSchema>;

/** Instance administrators override a project's quotas: a number (0 = no limit) or null (instance default). */
const quotaOverride = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional();
export const setProjectQuotasInput = z.object({
  project: projectIdSchema,
  packageSize: quotaOverride,
  branchVersionsCount: z.number().int().min(0).max(2_147_483_647).nullable().optional(),
  branchVersionsTime: quotaOverride,
  branchVersionsNonCurrentTime: quotaOverride,
});

export const descriptionImageSchema = z.object({
  id: recordIdSchema,
  width: z.number().int().min(1).max(16_384),
  height: z.number().int().min(1).max(16_384),
  scale: z.number().int().min(1).max(1000).default(100),
  url: z.string().max(2048).regex(/^[^\s\p{Cc}\p{Cs}]*$/u, 'not a URL'),
});

/** Markdown content of spec §3, stored and returned as is (rendering and image upload come later). */
export const descriptionSchema = z.object({
  markdown: multiLineText(100_000),
  lang: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/).max(35).nullable().default(null),
  images: z.array(descriptionImageSchema).max(200).default([]),
});
export type Description = z.infer<typeof descriptionSchema>;

export const starSchema = z.boolean();

export const projectUserSchema = z.object({
  user: z.object({ id: z.string(), title: z.string() }),
  role: projectRoleSchema,
  isOwner: z.boolean(),
  /** Joined through an invite that needs admin approval; an admin approves by setting a role. */
  pending: z.boolean(),
});
export type ProjectUser = z.infer<typeof projectUserSchema>;

/** PUT .../users: a missing role removes the user from the team. */
export const setProjectUserInput = z.object({ user: userRefSchema, role: projectRoleSchema.optional() });

const inviteIdSchema = recordIdSchema;
export const inviteTokenSchema = tokenText();

/**
 * POST .../invites. approved: joining makes a member at once (else a pending member an admin approves);
 * expires: ISO time or null for never; seats: a limit or null for none. oneTime: spec §9's one-time
 * invite (approved, 24 h, 1 seat), which overrides the other fields.
 */
export const createInviteInput = z.object({
  approved: z.boolean().default(true),
  expires: z.iso.datetime({ offset: true }).nullable().default(null),
  seats: z.number().int().min(1).max(1_000_000).nullable().default(null),
  oneTime: z.boolean().default(false),
});

/** An invite link as admins list it (the token is shown once, at creation). */
export const inviteSchema = z.object({
  id: z.string(),
  approved: z.boolean(),
  expires: z.string().nullable(),
  seats: z.number().nullable(),
  uses: z.number(),
  oneTime: z.boolean(),
  created: z.string(),
});
export type Invite = z.infer<typeof inviteSchema>;

export const createdInviteSchema = inviteSchema.extend({ token: z.string(), projectId: z.string(), projectTitle: z.string() });
export type CreatedInvite = z.infer<typeof createdInviteSchema>;

/** GET /invites?token: spec §3 Invite, plus whether the signed-in caller already belongs to the project. */
export const inviteViewSchema = z.object({
  token: z.string(),
  approved: z.boolean(),
  expires: z.string().nullable(),
  seats: z.number().nullable(),
  projectId: z.string(),
  projectTitle: z.string(),
  alreadyMember: z.boolean(),
});
export type InviteView = z.infer<typeof inviteViewSchema>;

/** POST /invites?token: pending when the invite needs an admin's approval. */
export const joinedInviteSchema = z.object({ projectId: z.string(), projectTitle: z.string(), pending: z.boolean() });
export type JoinedInvite = z.infer<typeof joinedInviteSchema>;
