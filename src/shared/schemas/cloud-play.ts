import { z } from 'zod';
import { recordIdSchema, singleLineText, tokenText } from './text.ts';

/** The cloud-play page's states (spec §4); their texts are the messages packages.cloud_play.status.{state}. */
export const cloudPlayStates = ['not_started', 'creating_session', 'awaiting_machine', 'connecting', 'playing', 'error'] as const;
export type CloudPlayState = (typeof cloudPlayStates)[number];

/** Spec §9: the page asks again this often while session/init answers timeout. */
export const cloudPlayRetryMs = 1000;

/** A STUN/TURN server for RTCPeerConnection (empty list by default, spec §9: loopback and LANs need none). */
export const iceServerSchema = z.object({
  urls: z.union([z.string(), z.array(z.string())]),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type IceServer = z.infer<typeof iceServerSchema>;

/** How a session streams: the game's display size and frame rate, and its limits. */
export const cloudPlaySettingsSchema = z.object({
  width: z.number().int().min(320).max(3840),
  height: z.number().int().min(240).max(2160),
  fps: z.number().int().min(10).max(120),
  /** Seconds without any input before the session ends. */
  idleSeconds: z.number().int().min(10),
  /** Seconds a session may last at most. */
  maxSeconds: z.number().int().min(60),
});
export type CloudPlaySettings = z.infer<typeof cloudPlaySettingsSchema>;

/**
 * POST /projects/{project}/packages/{package}/cloud-play: a new session for the caller (one live
 * session per user: a new one ends the previous). token authorises the player's init, connect and
 * stop calls; the page gives iceServers to its RTCPeerConnection.
 */
export const createdCloudSessionSchema = z.object({
  session: z.string(),
  token: z.string(),
  iceServers: z.array(iceServerSchema),
  settings: cloudPlaySettingsSchema,
});
export type CreatedCloudSession = z.infer<typeof createdCloudSessionSchema>;

/** POST /cloud-play/session/init {token}: the agent's offer as JSON text ({type:'offer', sdp}); timeout (503) until ready. */
export const cloudSessionTokenInput = z.object({ token: tokenText() });
export const cloudInitReplySchema = z.string();

/** Spec §3 connect request: the page's answer to the offer. POST /cloud-play/session/connect → {ok}. */
export const cloudConnectInput = z.object({ token: tokenText(), sdp: z.string().min(1).max(65_536) });

/** GET /cloud-play/session?token: where the session stands (the page's footer, the end reason). */
export const cloudSessionStatuses = ['waiting', 'assigned', 'offered', 'answered', 'playing', 'ended', 'errored'] as const;
export type CloudSessionStatus = (typeof cloudSessionStatuses)[number];
export const cloudSessionStateSchema = z.object({
  status: z.enum(cloudSessionStatuses),
  /** Why it ended or failed: 'stopped', 'game_exited', 'idle', 'time_limit', 'machine_lost', 'not_connected', … */
  reason: z.string().nullable(),
});
export type CloudSessionState = z.infer<typeof cloudSessionStateSchema>;

/**
 * GET /cloud-play/availability (cloudPlay.availability), for any caller: whether a machine can take a
 * session now (registered, not revoked, called within CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS, capacity
 * above 0). Only this yes or no: nothing of the machines themselves.
 */
export const cloudPlayAvailabilitySchema = z.object({ machineOnline: z.boolean() });
export type CloudPlayAvailability = z.infer<typeof cloudPlayAvailabilitySchema>;

/** details.reason of the create call's refusal (not_supported) when no machine is online. */
export const noMachineOnlineReason = 'no_machine_online';

/* ---- The host agent's side (Authorization: Bearer <machine token>) ---- */

/** What the agent says of each of its sessions. */
export const machineSessionReportSchema = z.object({
  session: recordIdSchema,
  state: z.enum(['preparing', 'offered', 'connecting', 'playing', 'ended', 'errored']),
  /** Once ready: the offer as JSON text ({type:'offer', sdp}). */
  offer: z.string().max(65_536).optional(),
  /** Why the session ended or failed (same words as cloudSessionStateSchema.reason), or an error text. */
  reason: z.string().max(1000).optional(),
});
export type MachineSessionReport = z.infer<typeof machineSessionReportSchema>;

/**
 * POST /cloud-play/machine/provide: the agent's heartbeat and long poll. It reports its capacity and
 * sessions; the reply says what to do. With `wait`, the server holds the call (at most `heartbeatMs`)
 * until there is something to say. A machine that stops calling is lost: its sessions end.
 */
export const machineProvideInput = z.object({
  capacity: z.number().int().min(0).max(64),
  agentVersion: singleLineText(1, 64),
  sessions: z.array(machineSessionReportSchema).max(64),
  wait: z.boolean().default(true),
});

/** Where the agent fetches a session's package: GET /internal/access/projects/{p}/branches/{b}/versions/{v}/packages/{pkg} ('-' for no branch or version). */
const cloudPackageRefSchema = z.object({
  project: z.string(),
  branch: z.string(),
  version: z.string(),
  package: z.string(),
  title: z.string(),
  entrypoint: z.array(z.string()),
  size: z.number().nullable(),
  /** The archive's index hash: the agent's cache key. */
  indexHash: z.string().nullable(),
});

const machineWorkSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('start'),
    session: z.string(),
    package: cloudPackageRefSchema,
    settings: cloudPlaySettingsSchema,
    iceServers: z.array(iceServerSchema),
  }),
  z.object({ kind: z.literal('answer'), session: z.string(), sdp: z.string() }),
  z.object({ kind: z.literal('stop'), session: z.string(), reason: z.string() }),
]);
export type MachineWork = z.infer<typeof machineWorkSchema>;

export const machineProvideReplySchema = z.object({
  work: z.array(machineWorkSchema),
  /** Call again within this many milliseconds (the heartbeat), at once when work came. */
  heartbeatMs: z.number().int(),
});
export type MachineProvideReply = z.infer<typeof machineProvideReplySchema>;

/** GET /internal/access/...: signed URLs of the package's archive and its index (machine-only). */
export const internalPackageAccessSchema = z.object({
  archiveUrl: z.string(),
  indexUrl: z.string(),
  size: z.number().nullable(),
  indexHash: z.string().nullable(),
  entrypoint: z.array(z.string()).nullable(),
});

/* ---- Administration (instance administrators; tRPC admin.cloudMachines.*, server command `admin machine`) ---- */

export const cloudMachineSchema = z.object({
  id: z.string(),
  title: z.string(),
  created: z.string(),
  lastSeen: z.string().nullable(),
  capacity: z.number().int(),
  liveSessions: z.number().int(),
  agentVersion: z.string().nullable(),
  revoked: z.boolean(),
});
export type CloudMachine = z.infer<typeof cloudMachineSchema>;
export const createCloudMachineInput = z.object({ title: singleLineText(1, 64) });
/** The machine's token is shown once, here; only its hash is stored. */
export const createdCloudMachineSchema = z.object({ machine: cloudMachineSchema, token: z.string() });
export const cloudMachineIdInput = z.object({ machine: recordIdSchema });
