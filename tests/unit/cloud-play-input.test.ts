import { describe, expect, test } from 'bun:test';
import { decodeInput, decodePing, encodeInput, encodePing, type InputEvent } from '../../src/shared/cloud-play/input.ts';
import { InputCapture } from '../../src/client/cloud-play/input-capture.ts';
import { HeldButtons, HeldKeys, pointerToGame, shownScale, VirtualCursor, WheelNotches, x11ButtonOf } from '../../src/client/cloud-play/input-events.ts';

/**
 * The player's input as the page sends it (spec §7 codes 0, 1, 3, 4, 5 through
 * src/shared/cloud-play/input.ts): keys by their physical code, no repeats, everything released when
 * capture ends; the pointer scaled to the game's pixels past the letterbox bars; under pointer lock a
 * virtual cursor kept inside the game; the wheel as buttons 4 and 5.
 */

const game = { width: 1280, height: 720 };

describe('keys', () => {
  test('KeyboardEvent.code → Linux code, down once however long it is held, up once', () => {
    const keys = new HeldKeys();
    expect(keys.down('KeyA')).toEqual({ type: 'keyDown', key: 30 });
    // The browser's auto-repeat sends keydown again: nothing more goes to the game.
    expect(keys.down('KeyA')).toBeUndefined();
    expect(keys.down('KeyA')).toBeUndefined();
    expect(keys.up('KeyA')).toEqual({ type: 'keyUp', key: 30 });
    expect(keys.up('KeyA')).toBeUndefined();
    expect(keys.down('Space')).toEqual({ type: 'keyDown', key: 57 });
    expect(keys.down('ArrowLeft')).toEqual({ type: 'keyDown', key: 105 });
    expect(keys.down('Enter')).toEqual({ type: 'keyDown', key: 28 });
    expect(keys.down('ShiftLeft')).toEqual({ type: 'keyDown', key: 42 });
  });

  test('keys the game cannot receive give nothing', () => {
    const keys = new HeldKeys();
    for (const code of ['', 'Unidentified', 'MediaPlayPause', 'Fn', 'BrowserBack']) {
      expect(keys.down(code)).toBeUndefined();
      expect(keys.up(code)).toBeUndefined();
    }
    expect(keys.size).toBe(0);
  });

  test('releaseAll lifts every held key once', () => {
    const keys = new HeldKeys();
    keys.down('KeyW');
    keys.down('KeyD');
    keys.down('ShiftLeft');
    keys.up('KeyD');
    expect(keys.releaseAll()).toEqual([
      { type: 'keyUp', key: 17 },
      { type: 'keyUp', key: 42 },
    ]);
    expect(keys.releaseAll()).toEqual([]);
  });

  test('the messages on the wire', () => {
    expect([...encodeInput({ type: 'keyDown', key: 30 })]).toEqual([0, 0, 30]);
    expect([...encodeInput({ type: 'keyUp', key: 105 })]).toEqual([1, 0, 105]);
    expect([...encodeInput({ type: 'mouseMove', x: 1279, y: 719 })]).toEqual([3, 4, 255, 2, 207]);
    expect([...encodeInput({ type: 'mouseDown', button: 1 })]).toEqual([4, 1]);
    expect([...encodeInput({ type: 'mouseUp', button: 3 })]).toEqual([5, 3]);
  });

  test('ping: [6, sequence u32 big-endian], echoed by the agent; never an input event', () => {
    expect([...encodePing(0)]).toEqual([6, 0, 0, 0, 0]);
    expect([...encodePing(0x01020304)]).toEqual([6, 1, 2, 3, 4]);
    // Modulo 2^32: a page counting past it wraps around.
    expect([...encodePing(0xffffffff)]).toEqual([6, 255, 255, 255, 255]);
    expect([...encodePing(2 ** 32 + 5)]).toEqual([6, 0, 0, 0, 5]);
    for (const sequence of [0, 1, 65_535, 65_536, 0x7fffffff, 0xfffffffe]) expect(decodePing(encodePing(sequence))).toBe(sequence);
    // Read from inside a larger buffer (the agent's messages are views of werift's buffers).
    const framed = new Uint8Array([9, 9, 6, 0, 0, 1, 0, 9]);
    expect(decodePing(framed.subarray(2, 7))).toBe(256);
    // The wrong length or another code: not a ping.
    expect(decodePing(new Uint8Array([6, 0, 0, 1]))).toBeUndefined();
    expect(decodePing(new Uint8Array([6, 0, 0, 0, 1, 0]))).toBeUndefined();
    expect(decodePing(new Uint8Array([]))).toBeUndefined();
    expect(decodePing(encodeInput({ type: 'mouseMove', x: 1, y: 2 }))).toBeUndefined();
    // decodeInput ignores pings (the agent answers them before it looks for input).
    expect(decodeInput(encodePing(7))).toBeUndefined();
    // Codes nobody knows stay ignored.
    expect(decodeInput(new Uint8Array([2, 0, 30]))).toBeUndefined();
    expect(decodeInput(new Uint8Array([7, 0, 0, 0, 1]))).toBeUndefined();
  });
});

describe('mouse buttons and wheel', () => {
  test('DOM buttons → X11 buttons; back and forward are not sent', () => {
    expect([0, 1, 2, 3, 4].map(x11ButtonOf)).toEqual([1, 2, 3, undefined, undefined]);
    const buttons = new HeldButtons();
    expect(buttons.down(0)).toEqual({ type: 'mouseDown', button: 1 });
    expect(buttons.down(0)).toBeUndefined();
    expect(buttons.down(2)).toEqual({ type: 'mouseDown', button: 3 });
    expect(buttons.up(0)).toEqual({ type: 'mouseUp', button: 1 });
    expect(buttons.up(1)).toBeUndefined();
    expect(buttons.releaseAll()).toEqual([{ type: 'mouseUp', button: 3 }]);
  });

  test('the wheel: a press and release of 4 (up) or 5 (down) per notch, small deltas added up', () => {
    const wheel = new WheelNotches();
    const click = (button: number): InputEvent[] => [
      { type: 'mouseDown', button },
      { type: 'mouseUp', button },
    ];
    // Pixels (Chromium): 50 px a notch.
    expect(wheel.events(100, 0)).toEqual([...click(5), ...click(5)]);
    expect(wheel.events(-53, 0)).toEqual(click(4));
    // A touchpad's small deltas: one notch once they add up to it.
    expect(wheel.events(-20, 0)).toEqual([]);
    expect(wheel.events(-20, 0)).toEqual([]);
    expect(wheel.events(-20, 0)).toEqual(click(4));
    // Turning the other way drops what was left over.
    expect(wheel.events(30, 0)).toEqual([]);
    expect(wheel.events(30, 0)).toEqual(click(5));
    // Lines (Firefox: 3 a notch) and pages.
    expect(new WheelNotches().events(3, 1)).toEqual(click(5));
    expect(new WheelNotches().events(-1, 2)).toEqual([...click(4), ...click(4), ...click(4)]);
    expect(new WheelNotches().events(0, 0)).toEqual([]);
  });
});

describe('pointer position in the game', () => {
  test('an element of the game’s proportions: scaled', () => {
    const box = { left: 100, top: 50, width: 640, height: 360 };
    expect(pointerToGame({ x: 100, y: 50 }, box, game)).toEqual({ x: 0, y: 0 });
    expect(pointerToGame({ x: 420, y: 230 }, box, game)).toEqual({ x: 640, y: 360 });
    expect(pointerToGame({ x: 739.9, y: 409.9 }, box, game)).toEqual({ x: 1279, y: 719 });
    expect(pointerToGame({ x: 740, y: 230 }, box, game)).toBeUndefined();
  });

  test('a wider element: bars left and right are outside the game', () => {
    // 1000×360 shows the 640×360 picture from x = 180 to 820.
    const box = { left: 0, top: 0, width: 1000, height: 360 };
    expect(pointerToGame({ x: 179, y: 100 }, box, game)).toBeUndefined();
    expect(pointerToGame({ x: 180, y: 0 }, box, game)).toEqual({ x: 0, y: 0 });
    expect(pointerToGame({ x: 500, y: 180 }, box, game)).toEqual({ x: 640, y: 360 });
    expect(pointerToGame({ x: 820, y: 100 }, box, game)).toBeUndefined();
  });

  test('a taller element: bars above and below', () => {
    // 640×600 shows the 640×360 picture from y = 120 to 480.
    const box = { left: 10, top: 20, width: 640, height: 600 };
    expect(pointerToGame({ x: 330, y: 139 }, box, game)).toBeUndefined();
    expect(pointerToGame({ x: 330, y: 140 }, box, game)).toEqual({ x: 640, y: 0 });
    expect(pointerToGame({ x: 10, y: 499 }, box, game)).toEqual({ x: 0, y: 718 });
    expect(pointerToGame({ x: 10, y: 500 }, box, game)).toBeUndefined();
  });

  test('a bigger element (fullscreen): scaled up', () => {
    const box = { left: 0, top: 0, width: 2560, height: 1440 };
    expect(shownScale(box, game)).toBe(2);
    expect(pointerToGame({ x: 2559, y: 1439 }, box, game)).toEqual({ x: 1279, y: 719 });
    expect(pointerToGame({ x: 3, y: 3 }, box, game)).toEqual({ x: 1, y: 1 });
  });
});

describe('pointer lock: the virtual cursor', () => {
  test('starts in the middle, or where the pointer was', () => {
    expect(new VirtualCursor(game).position).toEqual({ x: 640, y: 360 });
    expect(new VirtualCursor(game, { x: 10, y: 20 }).position).toEqual({ x: 10, y: 20 });
  });

  test('movements add up in game pixels at the picture’s scale, fractions kept', () => {
    const cursor = new VirtualCursor(game, { x: 100, y: 100 });
    const half = { width: 640, height: 360 };
    // The picture is shown at half size: one CSS pixel is two game pixels.
    expect(cursor.move(10, -5, half)).toEqual({ x: 120, y: 90 });
    const double = { width: 2560, height: 1440 };
    // Shown at twice the size: half a game pixel per CSS pixel, the halves add up.
    expect(cursor.move(1, 1, double)).toEqual({ x: 120, y: 90 });
    expect(cursor.move(1, 1, double)).toEqual({ x: 121, y: 91 });
    // Letterboxed: the scale is the picture's, not the element's width.
    expect(cursor.move(10, 0, { width: 1000, height: 360 })).toEqual({ x: 141, y: 91 });
  });

  test('kept inside the game’s area', () => {
    const cursor = new VirtualCursor(game, { x: 5, y: 5 });
    const size = { width: 1280, height: 720 };
    expect(cursor.move(-100, -100, size)).toEqual({ x: 0, y: 0 });
    expect(cursor.move(5000, 5000, size)).toEqual({ x: 1279, y: 719 });
    // Coming back starts from the edge, not from where the pointer went.
    expect(cursor.move(-10, -10, size)).toEqual({ x: 1269, y: 709 });
    cursor.moveTo({ x: -4, y: 9999 });
    expect(cursor.position).toEqual({ x: 0, y: 719 });
  });
});

/* ---- InputCapture from DOM events (plain EventTargets standing in for the document and the video) ---- */

class FakeDocument extends EventTarget {
  pointerLockElement: unknown = null;
  visibilityState = 'visible';
  exits = 0;
  defaultView = new EventTarget();
  exitPointerLock() {
    this.exits++;
    if (this.pointerLockElement) {
      this.pointerLockElement = null;
      this.dispatchEvent(new Event('pointerlockchange'));
    }
  }
}

class FakeVideo extends EventTarget {
  focused = 0;
  lockRequests = 0;
  grantLock = true;
  box = { left: 0, top: 0, width: 640, height: 360, right: 640, bottom: 360, x: 0, y: 0 };
  constructor(readonly ownerDocument: FakeDocument) {
    super();
  }
  getBoundingClientRect() {
    return this.box;
  }
  focus() {
    this.focused++;
  }
  requestPointerLock() {
    this.lockRequests++;
    if (this.grantLock) {
      this.ownerDocument.pointerLockElement = this;
      queueMicrotask(() => this.ownerDocument.dispatchEvent(new Event('pointerlockchange')));
    }
    return Promise.resolve();
  }
}

function domEvent(type: string, fields: Record<string, unknown>): Event {
  const event = new Event(type, { cancelable: true, bubbles: true });
  for (const [key, value] of Object.entries(fields)) Object.defineProperty(event, key, { value });
  return event;
}

const key = (type: 'keydown' | 'keyup', code: string) => domEvent(type, { code, repeat: false });
const mouse = (type: string, fields: { button?: number; clientX?: number; clientY?: number; movementX?: number; movementY?: number }) =>
  domEvent(type, { button: 0, clientX: 0, clientY: 0, movementX: 0, movementY: 0, ...fields });

function setup(options: { lock?: boolean; playing?: boolean } = {}) {
  const doc = new FakeDocument();
  const video = new FakeVideo(doc);
  video.grantLock = options.lock ?? true;
  const sent: InputEvent[] = [];
  const captures: boolean[] = [];
  let playing = options.playing ?? true;
  const capture = new InputCapture({
    element: video as unknown as HTMLElement,
    game: () => (playing ? game : undefined),
    send: (message) => sent.push(decodeInput(message)!),
    onCaptureChange: (captured) => captures.push(captured),
  });
  const take = () => sent.splice(0);
  return {
    doc,
    video,
    capture,
    sent,
    take,
    captures,
    stopPlaying: () => (playing = false),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('InputCapture', () => {
  test('nothing is captured before a click: keys stay the browser’s', () => {
    const { doc, take, capture } = setup();
    const event = key('keydown', 'KeyA');
    doc.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(false);
    doc.dispatchEvent(mouse('mousemove', { clientX: 10, clientY: 10 }));
    expect(take()).toEqual([]);
    expect(capture.isCaptured).toBe(false);
  });

  test('a click captures (cursor placed, pointer locked) without clicking in the game; keys then go to the game', async () => {
    const { doc, video, take, captures, capture } = setup();
    video.dispatchEvent(mouse('mousedown', { clientX: 320, clientY: 180 }));
    await tick();
    expect(capture.isCaptured).toBe(true);
    expect(captures).toEqual([true]);
    expect(video.focused).toBe(1);
    expect(video.lockRequests).toBe(1);
    expect(take()).toEqual([{ type: 'mouseMove', x: 640, y: 360 }]);
    doc.dispatchEvent(mouse('mouseup', {}));
    expect(take()).toEqual([]);

    const down = key('keydown', 'KeyA');
    doc.dispatchEvent(down);
    expect(down.defaultPrevented).toBe(true);
    const repeat = key('keydown', 'KeyA');
    doc.dispatchEvent(repeat);
    // Held: the repeat is kept from the browser too, and not sent.
    expect(repeat.defaultPrevented).toBe(true);
    doc.dispatchEvent(key('keyup', 'KeyA'));
    expect(take()).toEqual([
      { type: 'keyDown', key: 30 },
      { type: 'keyUp', key: 30 },
    ]);
    // A key the game cannot receive stays the browser's.
    const media = key('keydown', 'MediaPlayPause');
    doc.dispatchEvent(media);
    expect(media.defaultPrevented).toBe(false);
    expect(take()).toEqual([]);
  });

  test('under pointer lock the movements drive the virtual cursor; buttons and wheel go to the game', async () => {
    const { doc, video, take } = setup();
    video.dispatchEvent(mouse('mousedown', { clientX: 320, clientY: 180 }));
    await tick();
    take();
    // 640×360 shows the game at half size: 10 CSS px are 20 game px.
    doc.dispatchEvent(mouse('mousemove', { movementX: 10, movementY: -10 }));
    doc.dispatchEvent(mouse('mousemove', { movementX: -5000, movementY: 0 }));
    video.dispatchEvent(mouse('mousedown', { button: 2 }));
    doc.dispatchEvent(mouse('mouseup', { button: 2 }));
    const wheel = domEvent('wheel', { deltaY: -100, deltaMode: 0 });
    video.dispatchEvent(wheel);
    expect(wheel.defaultPrevented).toBe(true);
    expect(take()).toEqual([
      { type: 'mouseMove', x: 660, y: 340 },
      { type: 'mouseMove', x: 0, y: 340 },
      { type: 'mouseDown', button: 3 },
      { type: 'mouseUp', button: 3 },
      { type: 'mouseDown', button: 4 },
      { type: 'mouseUp', button: 4 },
      { type: 'mouseDown', button: 4 },
      { type: 'mouseUp', button: 4 },
    ]);
    const menu = domEvent('contextmenu', {});
    video.dispatchEvent(menu);
    expect(menu.defaultPrevented).toBe(true);
  });

  test('without pointer lock the pointer’s position is scaled, the bars send nothing', async () => {
    const { doc, video, take } = setup({ lock: false });
    video.box = { left: 0, top: 0, width: 1000, height: 360, right: 1000, bottom: 360, x: 0, y: 0 };
    video.dispatchEvent(mouse('mousedown', { clientX: 500, clientY: 180 }));
    await tick();
    expect(take()).toEqual([{ type: 'mouseMove', x: 640, y: 360 }]);
    doc.dispatchEvent(mouse('mousemove', { clientX: 100, clientY: 180 }));
    doc.dispatchEvent(mouse('mousemove', { clientX: 180, clientY: 0 }));
    // The same game pixel twice: sent once.
    doc.dispatchEvent(mouse('mousemove', { clientX: 180.2, clientY: 0.2 }));
    video.dispatchEvent(mouse('mousedown', { clientX: 819, clientY: 359 }));
    expect(take()).toEqual([
      { type: 'mouseMove', x: 0, y: 0 },
      { type: 'mouseMove', x: 1278, y: 718 },
      { type: 'mouseDown', button: 1 },
    ]);
  });

  test('Escape releases every held key and button and gives the keyboard back; it is never sent', async () => {
    const { doc, video, take, captures, capture } = setup({ lock: false });
    video.dispatchEvent(mouse('mousedown', {}));
    await tick();
    take();
    doc.dispatchEvent(key('keydown', 'KeyW'));
    doc.dispatchEvent(key('keydown', 'ShiftLeft'));
    video.dispatchEvent(mouse('mousedown', { button: 0 }));
    take();
    const escape = key('keydown', 'Escape');
    doc.dispatchEvent(escape);
    expect(escape.defaultPrevented).toBe(false);
    expect(take()).toEqual([
      { type: 'keyUp', key: 17 },
      { type: 'keyUp', key: 42 },
      { type: 'mouseUp', button: 1 },
    ]);
    expect(capture.isCaptured).toBe(false);
    expect(captures).toEqual([true, false]);
    const after = key('keydown', 'KeyW');
    doc.dispatchEvent(after);
    expect(after.defaultPrevented).toBe(false);
    expect(take()).toEqual([]);
  });

  test('leaving pointer lock (the browser’s Escape) ends capture and releases the keys', async () => {
    const { doc, video, take, capture } = setup();
    video.dispatchEvent(mouse('mousedown', {}));
    await tick();
    doc.dispatchEvent(key('keydown', 'KeyD'));
    take();
    doc.pointerLockElement = null;
    doc.dispatchEvent(new Event('pointerlockchange'));
    expect(take()).toEqual([{ type: 'keyUp', key: 32 }]);
    expect(capture.isCaptured).toBe(false);
  });

  test('the window losing focus or the tab hidden releases everything', async () => {
    const { doc, video, take, capture } = setup();
    video.dispatchEvent(mouse('mousedown', {}));
    await tick();
    doc.dispatchEvent(key('keydown', 'ArrowUp'));
    take();
    doc.defaultView.dispatchEvent(new Event('blur'));
    expect(take()).toEqual([{ type: 'keyUp', key: 103 }]);
    expect(capture.isCaptured).toBe(false);
    expect(doc.exits).toBe(1);

    video.dispatchEvent(mouse('mousedown', {}));
    await tick();
    doc.dispatchEvent(key('keydown', 'KeyS'));
    take();
    doc.visibilityState = 'hidden';
    doc.dispatchEvent(new Event('visibilitychange'));
    expect(take()).toEqual([{ type: 'keyUp', key: 31 }]);
  });

  test('no game playing: clicks do not capture; dispose removes every listener', async () => {
    const { doc, video, take, capture, stopPlaying } = setup({ playing: false });
    video.dispatchEvent(mouse('mousedown', {}));
    await tick();
    expect(capture.isCaptured).toBe(false);
    expect(video.lockRequests).toBe(0);
    stopPlaying();
    capture.dispose();
    video.dispatchEvent(mouse('mousedown', {}));
    doc.dispatchEvent(key('keydown', 'KeyA'));
    expect(take()).toEqual([]);
  });
});

describe('a stream sent at another size than the game', () => {
  test('same proportions, smaller picture: positions still in game pixels, full precision', () => {
    const box = { left: 0, top: 0, width: 1000, height: 360 };
    const picture = { width: 640, height: 360 };
    expect(pointerToGame({ x: 500, y: 180 }, box, game, picture)).toEqual({ x: 640, y: 360 });
    expect(pointerToGame({ x: 180.5, y: 0.5 }, box, game, picture)).toEqual({ x: 1, y: 1 });
    expect(pointerToGame({ x: 100, y: 0 }, box, game, picture)).toBeUndefined();
    expect(shownScale(box, game, picture)).toBe(0.5);
  });

  test('other proportions: the bars follow the picture, positions are scaled to the game', () => {
    // A 4:3 picture in a 800×300 box: shown 400×300 from x = 200 to 600.
    const box = { left: 0, top: 0, width: 800, height: 300 };
    const picture = { width: 800, height: 600 };
    expect(pointerToGame({ x: 199, y: 150 }, box, game, picture)).toBeUndefined();
    expect(pointerToGame({ x: 200, y: 0 }, box, game, picture)).toEqual({ x: 0, y: 0 });
    expect(pointerToGame({ x: 400, y: 150 }, box, game, picture)).toEqual({ x: 640, y: 360 });
    expect(pointerToGame({ x: 599.9, y: 299.9 }, box, game, picture)).toEqual({ x: 1279, y: 719 });
    // 400 CSS px show 1280 game px across.
    expect(shownScale(box, game, picture)).toBeCloseTo(400 / 1280);
    const cursor = new VirtualCursor(game, { x: 0, y: 0 });
    expect(cursor.move(100, 0, box, picture)).toEqual({ x: 320, y: 0 });
  });
});
