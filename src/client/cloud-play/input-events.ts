/**
 * DOM input → the cloud-play input messages (src/shared/cloud-play/input.ts), as plain functions and
 * small state holders with no DOM of their own, so the unit tests drive them with plain objects.
 * input-capture.ts wires them to the video element.
 */
import { mouseButtons, toGamePoint, type InputEvent } from '../../shared/cloud-play/input.ts';
import { evdevCodeOf } from '../../shared/cloud-play/keys.ts';

export type Size = { width: number; height: number };
export type Point = { x: number; y: number };

/**
 * Keys held in the game: a key goes down once (the browser's auto-repeat sends nothing more) and up
 * once; releaseAll lifts whatever is still down when capture ends or the window loses focus.
 */
export class HeldKeys {
  private readonly held = new Set<number>();

  /** The keyDown of a KeyboardEvent.code, or undefined (a key the game cannot receive, or a repeat). */
  down(code: string): InputEvent | undefined {
    const key = evdevCodeOf(code);
    if (key === undefined || this.held.has(key)) return undefined;
    this.held.add(key);
    return { type: 'keyDown', key };
  }

  up(code: string): InputEvent | undefined {
    const key = evdevCodeOf(code);
    if (key === undefined || !this.held.delete(key)) return undefined;
    return { type: 'keyUp', key };
  }

  releaseAll(): InputEvent[] {
    const events: InputEvent[] = [...this.held].map((key) => ({ type: 'keyUp', key }));
    this.held.clear();
    return events;
  }

  get size(): number {
    return this.held.size;
  }
}

/** MouseEvent.button → X11 button (left 1, middle 2, right 3); undefined for the others. */
export function x11ButtonOf(domButton: number): number | undefined {
  switch (domButton) {
    case 0:
      return mouseButtons.left;
    case 1:
      return mouseButtons.middle;
    case 2:
      return mouseButtons.right;
    default:
      return undefined;
  }
}

/** Mouse buttons held in the game, like HeldKeys (released together when capture ends). */
export class HeldButtons {
  private readonly held = new Set<number>();

  down(domButton: number): InputEvent | undefined {
    const button = x11ButtonOf(domButton);
    if (button === undefined || this.held.has(button)) return undefined;
    this.held.add(button);
    return { type: 'mouseDown', button };
  }

  up(domButton: number): InputEvent | undefined {
    const button = x11ButtonOf(domButton);
    if (button === undefined || !this.held.delete(button)) return undefined;
    return { type: 'mouseUp', button };
  }

  releaseAll(): InputEvent[] {
    const events: InputEvent[] = [...this.held].map((button) => ({ type: 'mouseUp', button }));
    this.held.clear();
    return events;
  }
}

/**
 * A pointer position (clientX/Y) over the element's box in game pixels; undefined over the letterbox
 * bars. `picture` is the video's own size (videoWidth/Height): the bars follow its proportions, and a
 * stream sent smaller than the game is scaled back up. Without it the picture is taken to be the game's size.
 */
export function pointerToGame(client: Point, box: { left: number; top: number; width: number; height: number }, game: Size, picture: Size = game): Point | undefined {
  const point = { x: client.x - box.left, y: client.y - box.top };
  const element = { width: box.width, height: box.height };
  // The usual case: the stream has the game's proportions (whatever its size), so the bars are the game's.
  if (picture.width * game.height === picture.height * game.width) return toGamePoint(point, element, game);
  if (element.width <= 0 || element.height <= 0 || picture.width <= 0 || picture.height <= 0) return undefined;
  const scale = Math.min(element.width / picture.width, element.height / picture.height);
  const shown = { width: picture.width * scale, height: picture.height * scale };
  const fx = (point.x - (element.width - shown.width) / 2) / shown.width;
  const fy = (point.y - (element.height - shown.height) / 2) / shown.height;
  if (fx < 0 || fy < 0 || fx >= 1 || fy >= 1) return undefined;
  return { x: Math.floor(fx * game.width), y: Math.floor(fy * game.height) };
}

/** CSS pixels of the element per game pixel under `object-fit: contain` (the picture at its own size, see pointerToGame). */
export function shownScale(element: Size, game: Size, picture: Size = game): number {
  if (element.width <= 0 || element.height <= 0 || game.width <= 0 || game.height <= 0 || picture.width <= 0 || picture.height <= 0) return 1;
  return Math.min(element.width / picture.width, element.height / picture.height) * (picture.width / game.width);
}

/**
 * The cursor under pointer lock, where the browser reports only movements: they are added up in the
 * game's pixels (scaled like the picture, so the cursor keeps the pointer's speed on screen) and kept
 * inside the game's area. Fractions are kept between moves so slow movements still add up.
 */
export class VirtualCursor {
  private x: number;
  private y: number;

  constructor(
    private readonly game: Size,
    start?: Point,
  ) {
    this.x = start?.x ?? Math.floor(game.width / 2);
    this.y = start?.y ?? Math.floor(game.height / 2);
    this.clamp();
  }

  /** Puts the cursor where the pointer was when the lock began. */
  moveTo(point: Point): void {
    this.x = point.x;
    this.y = point.y;
    this.clamp();
  }

  /** movementX/Y of a MouseEvent (CSS pixels) on an element of `element` size showing `picture`; the new position. */
  move(movementX: number, movementY: number, element: Size, picture: Size = this.game): Point {
    const scale = shownScale(element, this.game, picture);
    this.x += movementX / scale;
    this.y += movementY / scale;
    this.clamp();
    return this.position;
  }

  get position(): Point {
    return { x: Math.floor(this.x), y: Math.floor(this.y) };
  }

  private clamp(): void {
    this.x = Math.min(Math.max(this.x, 0), this.game.width - 1);
    this.y = Math.min(Math.max(this.y, 0), this.game.height - 1);
  }
}

/** WheelEvent.deltaMode values. */
const DOM_DELTA_LINE = 1;
const DOM_DELTA_PAGE = 2;
/**
 * One notch: 3 lines (Firefox's notch) or 50 CSS pixels (a notch is 50 to 120 pixels in Chromium
 * depending on the system, so every real notch makes at least one); a page counts as 3 notches.
 */
const PIXELS_PER_NOTCH = 50;
const LINES_PER_NOTCH = 3;

/**
 * The wheel as X11 buttons 4 (up) and 5 (down), each a press and a release. Deltas are added up so a
 * touchpad's many small deltas make notches as a wheel's clicks would, not one notch per event.
 */
export class WheelNotches {
  private pending = 0;

  events(deltaY: number, deltaMode: number): InputEvent[] {
    const notches = deltaMode === DOM_DELTA_PAGE ? deltaY * 3 : deltaMode === DOM_DELTA_LINE ? deltaY / LINES_PER_NOTCH : deltaY / PIXELS_PER_NOTCH;
    // A change of direction drops what was left over the other way.
    if (Math.sign(notches) !== Math.sign(this.pending)) this.pending = 0;
    this.pending += notches;
    const whole = Math.trunc(this.pending);
    if (whole === 0) return [];
    this.pending -= whole;
    const button = whole < 0 ? mouseButtons.wheelUp : mouseButtons.wheelDown;
    const events: InputEvent[] = [];
    for (let index = 0; index < Math.min(Math.abs(whole), 10); index++) {
      events.push({ type: 'mouseDown', button }, { type: 'mouseUp', button });
    }
    return events;
  }
}
