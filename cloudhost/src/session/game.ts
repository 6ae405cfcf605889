import { decodeInput, decodePing } from '../../../src/shared/cloud-play/input.ts';
import type { AgentConfig } from '../config.ts';
import { XTestInjector } from '../injector.ts';
import { startJail } from '../jail.ts';
import type { GamePeer } from '../peer.ts';
import type { ManagedProcess } from '../processes.ts';
import { gameJail } from '../sandbox.ts';
import type { SessionLayout } from '../session-disk.ts';
import { mib, type SessionControl } from './control.ts';

/**
 * A session's game: its process in the game's jail (sandbox.ts: the game's user, limits, the
 * session's display and sound socket only), and the player's input injected into its display
 * through XTest (injector.ts). The game exiting ends the session: as errored when it failed before
 * play began, else as game_exited.
 */
export class SessionGame {
  private process: ManagedProcess | undefined;
  private injector: XTestInjector | undefined;
  /** When the player's input last reached the game (the idle limit counts from it). */
  lastInputAt: number | undefined;

  constructor(
    private readonly control: SessionControl,
    private readonly config: AgentConfig,
    private readonly hostRoots: Record<string, string>,
    /** The uid/gid the game runs as, or undefined for the agent's own user. */
    private readonly uid: number | undefined,
  ) {}

  /** Input events injected (for the session's closing log). */
  get injected(): number {
    return this.injector?.injected ?? 0;
  }

  /** Connects the input injector to the session's X server (before the game, so it sees the first window). */
  async connectInput(layout: SessionLayout, display: number): Promise<void> {
    this.injector = await this.control.adopt(await XTestInjector.connect(layout.x11Socket(display), display), (injector) => injector.close());
  }

  /** Starts the game in its jail on the session's display. */
  async start(layout: SessionLayout, entrypoint: string[], display: number): Promise<void> {
    const { config, uid } = this;
    const sandbox = gameJail({
      layout,
      entrypoint,
      display,
      withSound: true,
      uid,
      limits: {
        memoryBytes: config.memoryMb * mib,
        processes: config.maxProcesses,
        fileBytes: config.maxFileMb * mib,
        openFiles: config.maxOpenFiles,
      },
      shmBytes: config.shmMb * mib,
      programs: config.programs,
      hostRoots: this.hostRoots,
    });
    this.control.log.debug(`game: ${sandbox.entrypointInside} (display :${display}${uid === undefined ? '' : `, uid ${uid}`})`);
    const game = startJail('game', sandbox);
    this.process = await this.control.adopt(game, (process) => process.stop());
    game.exited.then((exit) => {
      if (this.control.closing()) return;
      const early = this.control.state() !== 'playing' && exit.code !== 0;
      if (early) this.control.end('errored', `the game ended at once (${exit.signal ?? `exit code ${exit.code}`}): ${game.stderrTail() || 'no message'}`);
      else this.control.end('ended', 'game_exited');
    });
  }

  /** Injects what arrives on the peer's input channel; a ping goes back as it came. */
  receiveInput(peer: GamePeer): void {
    peer.input.onMessage.subscribe((data) => {
      if (typeof data === 'string') return;
      const message = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      // A ping goes back as it came, on the same channel (the page times the round trip); it is no input.
      if (decodePing(message) !== undefined) {
        if (peer.input.readyState === 'open') peer.input.send(data);
        return;
      }
      const event = decodeInput(message);
      if (!event || !this.injector) return;
      if (this.injector.inject(event)) this.lastInputAt = Date.now();
    });
  }

  /** Stops the game's process group (bwrap, and with it the sandbox's whole PID namespace). */
  stop(): Promise<void> | undefined {
    return this.process?.stop(3000);
  }

  /** Releases whatever input holds and disconnects from the display. */
  closeInput(): void {
    this.injector?.close();
  }
}
