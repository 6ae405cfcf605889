import type { MachineWork } from '../../../src/shared/schemas/cloud-play.ts';
import type { SessionState } from '../lifecycle.ts';
import type { Logger } from '../log.ts';
import type { ServiceJailBase } from '../services.ts';

/** The work item that starts a session: its package, settings and ICE servers. */
export type StartWork = Extract<MachineWork, { kind: 'start' }>;

/** Thrown into a session's preparation once the session began ending (no failure: nothing is reported). */
export class SessionClosing extends Error {
  constructor() {
    super('the session is ending');
  }
}

export const mib = 1024 * 1024;

/**
 * What the parts of a session (its screen, sound, game and package: each owns its processes) get from
 * the session that runs them: whether it is ending, a way to end it, and its jail for servers.
 */
export type SessionControl = {
  readonly log: Logger;
  /** True from the moment the session began ending. */
  closing(): boolean;
  state(): SessionState;
  /** Takes a resource made while the session may have begun ending: stopped at once (SessionClosing) if it has. */
  adopt<T>(resource: T, stop: (resource: T) => unknown): Promise<T>;
  /** Throws SessionClosing once the session began ending. */
  checkAlive(): void;
  /** Ends the session (once; later calls change nothing). */
  end(state: 'ended' | 'errored', reason: string): void;
  /** What the session's servers and encoders run as and with (services.ts). */
  serviceJail(): ServiceJailBase;
};
