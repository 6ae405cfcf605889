/**
 * KeyboardEvent.code → Linux input event code (linux/input-event-codes.h). `code` names the physical
 * key whatever the player's layout, and the game's display interprets it with its own layout, as a
 * keyboard plugged into that machine would be.
 */
const letters = 'QWERTYUIOP'.split('').map((letter, index) => [`Key${letter}`, 16 + index] as const);
const home = 'ASDFGHJKL'.split('').map((letter, index) => [`Key${letter}`, 30 + index] as const);
const bottom = 'ZXCVBNM'.split('').map((letter, index) => [`Key${letter}`, 44 + index] as const);
const digits = '123456789'.split('').map((digit, index) => [`Digit${digit}`, 2 + index] as const);
const functions = Array.from({ length: 10 }, (_, index) => [`F${index + 1}`, 59 + index] as const);

const evdevCodes: Readonly<Record<string, number>> = Object.fromEntries([
  ...letters,
  ...home,
  ...bottom,
  ...digits,
  ...functions,
  ['Escape', 1],
  ['Digit0', 11],
  ['Minus', 12],
  ['Equal', 13],
  ['Backspace', 14],
  ['Tab', 15],
  ['BracketLeft', 26],
  ['BracketRight', 27],
  ['Enter', 28],
  ['ControlLeft', 29],
  ['Semicolon', 39],
  ['Quote', 40],
  ['Backquote', 41],
  ['ShiftLeft', 42],
  ['Backslash', 43],
  ['Comma', 51],
  ['Period', 52],
  ['Slash', 53],
  ['ShiftRight', 54],
  ['NumpadMultiply', 55],
  ['AltLeft', 56],
  ['Space', 57],
  ['CapsLock', 58],
  ['NumLock', 69],
  ['ScrollLock', 70],
  ['Numpad7', 71],
  ['Numpad8', 72],
  ['Numpad9', 73],
  ['NumpadSubtract', 74],
  ['Numpad4', 75],
  ['Numpad5', 76],
  ['Numpad6', 77],
  ['NumpadAdd', 78],
  ['Numpad1', 79],
  ['Numpad2', 80],
  ['Numpad3', 81],
  ['Numpad0', 82],
  ['NumpadDecimal', 83],
  ['IntlBackslash', 86],
  ['F11', 87],
  ['F12', 88],
  ['NumpadEnter', 96],
  ['ControlRight', 97],
  ['NumpadDivide', 98],
  ['PrintScreen', 99],
  ['AltRight', 100],
  ['Home', 102],
  ['ArrowUp', 103],
  ['PageUp', 104],
  ['ArrowLeft', 105],
  ['ArrowRight', 106],
  ['End', 107],
  ['ArrowDown', 108],
  ['PageDown', 109],
  ['Insert', 110],
  ['Delete', 111],
  ['Pause', 119],
  ['MetaLeft', 125],
  ['MetaRight', 126],
  ['ContextMenu', 127],
]);

/** The Linux code of a KeyboardEvent.code, or undefined for keys the game cannot receive. */
export function evdevCodeOf(code: string): number | undefined {
  return evdevCodes[code];
}

/** X servers number keys 8 above the Linux codes (evdev rules, as Xvfb uses). */
export function x11KeycodeOf(evdevCode: number): number {
  return evdevCode + 8;
}
