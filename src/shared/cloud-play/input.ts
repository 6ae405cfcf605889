/**
 * The player's input over the `input` data channel (spec §7): one binary message per event, written
 * by the browser and read by the host agent.
 *
 *   key down   [0, evdev code: u16]          key up     [1, evdev code: u16]
 *   mouse move [3, x: u16, y: u16]           (in the game's pixels, 0..width-1, 0..height-1)
 *   mouse down [4, button: u8]               mouse up   [5, button: u8]
 *   ping       [6, sequence: u32]            the agent sends the same 5 bytes back on the channel
 *
 * Integers are big-endian. A ping is no input (it is not injected and does not count against the
 * idle limit): the page times its echo to measure the channel's round trip. Any other code, or a
 * message of the wrong length, is ignored. Keys are Linux input event codes (the X server's keycode is that + 8), so
 * the agent needs no keyboard layout of its own; buttons are X11's (1 left, 2 middle, 3 right, 4 and 5
 * the wheel up and down, sent as a press and a release).
 */
const inputCodes = { keyDown: 0, keyUp: 1, mouseMove: 3, mouseDown: 4, mouseUp: 5, ping: 6 } as const;

export type InputEvent =
  | { type: 'keyDown' | 'keyUp'; key: number }
  | { type: 'mouseMove'; x: number; y: number }
  | { type: 'mouseDown' | 'mouseUp'; button: number };

export const mouseButtons = { left: 1, middle: 2, right: 3, wheelUp: 4, wheelDown: 5 } as const;

const u16 = (value: number) => Math.max(0, Math.min(0xffff, Math.round(value)));

export function encodeInput(event: InputEvent): Uint8Array<ArrayBuffer> {
  switch (event.type) {
    case 'keyDown':
    case 'keyUp': {
      const bytes = new Uint8Array(3);
      bytes[0] = inputCodes[event.type];
      new DataView(bytes.buffer).setUint16(1, u16(event.key));
      return bytes;
    }
    case 'mouseMove': {
      const bytes = new Uint8Array(5);
      const view = new DataView(bytes.buffer);
      bytes[0] = inputCodes.mouseMove;
      view.setUint16(1, u16(event.x));
      view.setUint16(3, u16(event.y));
      return bytes;
    }
    case 'mouseDown':
    case 'mouseUp':
      return new Uint8Array([inputCodes[event.type], Math.max(1, Math.min(255, Math.round(event.button)))]);
  }
}

/** The event in a message, or undefined for anything malformed (the agent ignores it). */
export function decodeInput(message: Uint8Array): InputEvent | undefined {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  switch (message[0]) {
    case inputCodes.keyDown:
    case inputCodes.keyUp:
      if (message.byteLength !== 3) return undefined;
      return { type: message[0] === inputCodes.keyDown ? 'keyDown' : 'keyUp', key: view.getUint16(1) };
    case inputCodes.mouseMove:
      if (message.byteLength !== 5) return undefined;
      return { type: 'mouseMove', x: view.getUint16(1), y: view.getUint16(3) };
    case inputCodes.mouseDown:
    case inputCodes.mouseUp:
      if (message.byteLength !== 2 || message[1] === 0) return undefined;
      return { type: message[0] === inputCodes.mouseDown ? 'mouseDown' : 'mouseUp', button: message[1]! };
    default:
      return undefined;
  }
}

/** A ping message: code 6 and the sequence number (taken modulo 2^32). */
export function encodePing(sequence: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(5);
  bytes[0] = inputCodes.ping;
  new DataView(bytes.buffer).setUint32(1, Math.trunc(sequence) >>> 0);
  return bytes;
}

/** The sequence number of a ping message, or undefined when the message is not one (decodeInput ignores pings). */
export function decodePing(message: Uint8Array): number | undefined {
  if (message.byteLength !== 5 || message[0] !== inputCodes.ping) return undefined;
  return new DataView(message.buffer, message.byteOffset, message.byteLength).getUint32(1);
}

/**
 * A point of the video element (CSS pixels from its top-left corner) in the game's pixels, allowing
 * for the letterbox bars of a video shown with `object-fit: contain`; undefined over the bars.
 */
export function toGamePoint(
  point: { x: number; y: number },
  element: { width: number; height: number },
  game: { width: number; height: number },
): { x: number; y: number } | undefined {
  if (element.width <= 0 || element.height <= 0 || game.width <= 0 || game.height <= 0) return undefined;
  const scale = Math.min(element.width / game.width, element.height / game.height);
  const shownWidth = game.width * scale;
  const shownHeight = game.height * scale;
  const x = (point.x - (element.width - shownWidth) / 2) / scale;
  const y = (point.y - (element.height - shownHeight) / 2) / scale;
  if (x < 0 || y < 0 || x >= game.width || y >= game.height) return undefined;
  return { x: Math.floor(x), y: Math.floor(y) };
}
