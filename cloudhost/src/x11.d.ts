/** The few parts of the pure-JS `x11` package (4.2.2, untyped) the agent uses. */
declare module 'x11' {
  import type { EventEmitter } from 'node:events';

  type Callback<T> = (error: Error | null | undefined, value: T) => void;

  export type XEvent = { name: string; type: number; wid?: number; parent?: number; event?: number; overrideRedirect?: boolean };

  export interface XTestExtension {
    KeyPress: number;
    KeyRelease: number;
    ButtonPress: number;
    ButtonRelease: number;
    MotionNotify: number;
    FakeInput(type: number, detail: number, time: number, window: number, x: number, y: number): void;
  }

  export interface XFixesExtension {
    QueryVersion(major: number, minor: number, callback: Callback<unknown>): void;
    GetCursorImage(callback: Callback<{ width: number; height: number; xhot: number; yhot: number; cursorSerial: number }>): void;
  }

  export interface XClient extends EventEmitter {
    require(name: 'xtest', callback: Callback<XTestExtension>): void;
    require(name: 'fixes', callback: Callback<XFixesExtension>): void;
    QueryTree(window: number, callback: Callback<{ root: number; parent: number; children: number[] }>): void;
    GetWindowAttributes(window: number, callback: Callback<{ mapState: number; overrideRedirect: number }>): void;
    ChangeWindowAttributes(window: number, values: { eventMask?: number; cursor?: number }): void;
    AllocID(): number;
    OpenFont(font: number, name: string): void;
    CloseFont(font: number): void;
    CreateGlyphCursor(cursor: number, sourceFont: number, maskFont: number, sourceChar: number, maskChar: number, fore: { R: number; G: number; B: number }, back: { R: number; G: number; B: number }): void;
    SetInputFocus(window: number, revertTo: number): void;
    GetInputFocus(callback: Callback<{ focus: number; revertTo: number }>): void;
    terminate(): void;
  }

  export type XDisplay = { client: XClient; screen: { root: number; pixel_width: number; pixel_height: number }[] };

  export function createClient(options: { display?: string; stream?: import('node:net').Socket; disableBigRequests?: boolean; shm?: false | 'off' }, callback: Callback<XDisplay>): XClient;
  export const eventMask: Record<string, number>;
}
