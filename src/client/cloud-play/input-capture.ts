/**
 * The player's keyboard and mouse over the game's video, sent to the game as input messages.
 *
 * Nothing is captured until the player clicks the video (that click only captures, and asks for
 * pointer lock); from then on keys and the mouse go to the game, and only the keys the game can
 * receive are kept from the browser (preventDefault). Escape, leaving pointer lock, the window losing
 * focus or the tab being hidden give everything back: every key and button still held is released in
 * the game first, so none stays stuck down.
 */
import { encodeInput, type InputEvent } from '../../shared/cloud-play/input.ts';
import { evdevCodeOf } from '../../shared/cloud-play/keys.ts';
import { HeldButtons, HeldKeys, pointerToGame, VirtualCursor, WheelNotches, type Point, type Size } from './input-events.ts';

export type InputCaptureOptions = {
  /** The video showing the game (`object-fit: contain`). */
  element: HTMLElement;
  /** The game's display size (the session's settings); undefined before a session exists. */
  game(): Size | undefined;
  /** One binary message to the `input` data channel. */
  send(message: Uint8Array<ArrayBuffer>): void;
  onCaptureChange?(captured: boolean): void;
};

export class InputCapture {
  private captured = false;
  private locked = false;
  private readonly keys = new HeldKeys();
  private readonly buttons = new HeldButtons();
  private readonly wheel = new WheelNotches();
  private cursor: VirtualCursor | undefined;
  private last: Point | undefined;
  private readonly cleanups: (() => void)[] = [];

  constructor(private readonly options: InputCaptureOptions) {
    const { element } = options;
    const doc = element.ownerDocument;
    const win = doc.defaultView ?? window;
    this.listen(element, 'mousedown', (event) => this.onMouseDown(event as MouseEvent));
    this.listen(element, 'wheel', (event) => this.onWheel(event as WheelEvent), { passive: false });
    this.listen(element, 'contextmenu', (event) => {
      if (this.captured) event.preventDefault();
    });
    this.listen(doc, 'mouseup', (event) => this.onMouseUp(event as MouseEvent));
    this.listen(doc, 'mousemove', (event) => this.onMouseMove(event as MouseEvent));
    this.listen(doc, 'keydown', (event) => this.onKey(event as KeyboardEvent, true), { capture: true });
    this.listen(doc, 'keyup', (event) => this.onKey(event as KeyboardEvent, false), { capture: true });
    this.listen(doc, 'pointerlockchange', () => this.onPointerLockChange());
    this.listen(doc, 'visibilitychange', () => {
      if (doc.visibilityState === 'hidden') this.release();
    });
    this.listen(win, 'blur', () => this.release());
  }

  get isCaptured(): boolean {
    return this.captured;
  }

  /** Gives keyboard and mouse back (held keys released in the game first). */
  release(): void {
    if (!this.captured) return;
    this.sendAll([...this.keys.releaseAll(), ...this.buttons.releaseAll()]);
    this.captured = false;
    const doc = this.options.element.ownerDocument;
    if (this.locked || doc.pointerLockElement === this.options.element) {
      this.locked = false;
      doc.exitPointerLock?.();
    }
    this.options.onCaptureChange?.(false);
  }

  dispose(): void {
    this.release();
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }

  private listen(target: EventTarget, type: string, listener: (event: Event) => void, options?: AddEventListenerOptions): void {
    target.addEventListener(type, listener, options);
    this.cleanups.push(() => target.removeEventListener(type, listener, options));
  }

  private sendAll(events: InputEvent[]): void {
    for (const event of events) this.options.send(encodeInput(event));
  }

  private capture(event: MouseEvent): void {
    const { element } = this.options;
    this.captured = true;
    this.options.onCaptureChange?.(true);
    element.focus({ preventScroll: true });
    // The game's cursor starts where the player clicked.
    this.moveTo(this.pointerPoint(event));
    try {
      const request = element.requestPointerLock?.() as Promise<void> | undefined;
      void request?.catch?.(() => undefined);
    } catch {
      // No pointer lock (refused, or not offered): the pointer's own position is used.
    }
  }

  /** The video's own size (the stream may be sent at another size than the game's); the game's until known. */
  private picture(game: Size): Size {
    const video = this.options.element as Partial<HTMLVideoElement>;
    return video.videoWidth && video.videoHeight ? { width: video.videoWidth, height: video.videoHeight } : game;
  }

  private pointerPoint(event: MouseEvent): Point | undefined {
    const game = this.options.game();
    if (!game) return undefined;
    return pointerToGame({ x: event.clientX, y: event.clientY }, this.options.element.getBoundingClientRect(), game, this.picture(game));
  }

  private moveTo(point: Point | undefined): void {
    if (!point || (this.last && this.last.x === point.x && this.last.y === point.y)) return;
    this.last = point;
    this.sendAll([{ type: 'mouseMove', x: point.x, y: point.y }]);
  }

  private onMouseDown(event: MouseEvent): void {
    if (!this.options.game()) return;
    if (!this.captured) {
      if (event.button === 0) this.capture(event);
      return;
    }
    event.preventDefault();
    if (!this.locked) this.moveTo(this.pointerPoint(event));
    const down = this.buttons.down(event.button);
    if (down) this.sendAll([down]);
  }

  private onMouseUp(event: MouseEvent): void {
    if (!this.captured) return;
    const up = this.buttons.up(event.button);
    if (up) this.sendAll([up]);
  }

  private onMouseMove(event: MouseEvent): void {
    if (!this.captured) return;
    const game = this.options.game();
    if (this.locked && this.cursor && game) {
      const box = this.options.element.getBoundingClientRect();
      this.moveTo(this.cursor.move(event.movementX, event.movementY, { width: box.width, height: box.height }, this.picture(game)));
    } else {
      this.moveTo(this.pointerPoint(event));
    }
  }

  private onWheel(event: WheelEvent): void {
    if (!this.captured) return;
    event.preventDefault();
    this.sendAll(this.wheel.events(event.deltaY, event.deltaMode));
  }

  private onKey(event: KeyboardEvent, down: boolean): void {
    if (!this.captured) return;
    if (event.code === 'Escape') {
      // Escape is the way out (and leaves fullscreen): it is never sent to the game.
      if (down) this.release();
      return;
    }
    if (evdevCodeOf(event.code) === undefined) return;
    event.preventDefault();
    event.stopPropagation();
    const message = down ? this.keys.down(event.code) : this.keys.up(event.code);
    if (message) this.sendAll([message]);
  }

  private onPointerLockChange(): void {
    const { element } = this.options;
    const lockedNow = element.ownerDocument.pointerLockElement === element;
    if (lockedNow && this.captured) {
      this.locked = true;
      const game = this.options.game();
      if (game) this.cursor = new VirtualCursor(game, this.last);
    } else if (!lockedNow && this.locked) {
      // The browser left pointer lock (Escape, another window): capture ends with it.
      this.locked = false;
      this.release();
    }
  }
}
