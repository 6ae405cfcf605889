import { createConnection } from 'node:net';
import * as x11 from 'x11';
import type { XClient, XDisplay, XTestExtension } from 'x11';
import type { InputEvent } from '../../src/shared/cloud-play/input.ts';
import { x11KeycodeOf } from '../../src/shared/cloud-play/keys.ts';

/** X keycodes are 8..255: Linux codes 0..247 fit. */
const maxEvdevCode = 255 - 8;
const maxButton = 9;
const revertToPointerRoot = 1;
const mapStateViewable = 2;
/** XC_left_ptr of the X cursor font (its mask is the next glyph). */
const cursorFontLeftPtr = 68;

/**
 * The player's input into one display through XTest: one connection per display (the pure-JS `x11`
 * package, no process per event). Keys are Linux codes (X keycode = code + 8, the evdev rules Xvfb
 * uses), pointer positions are absolute in the display's pixels, buttons are X11's.
 *
 * Xvfb has no window manager, so nothing gives the game's window the keyboard focus: the injector
 * watches the root window and focuses each top-level window as it is mapped (the newest on top), and
 * the newest viewable one when it starts.
 */
export class XTestInjector {
  /** Keys and buttons held down (released on close so nothing stays pressed). */
  private readonly keysDown = new Set<number>();
  private readonly buttonsDown = new Set<number>();
  private closed = false;
  focused: number | undefined;
  /** Events injected (tests, logs). */
  injected = 0;

  private constructor(
    private readonly client: XClient,
    private readonly xtest: XTestExtension,
    private readonly root: number,
    readonly width: number,
    readonly height: number,
  ) {}

  /** Connects to the display's socket (the session's x11/X<n>: the session's X server is in namespaces of its own). */
  static async connect(socketPath: string, display: number): Promise<XTestInjector> {
    const { client, display: info } = await new Promise<{ client: XClient; display: XDisplay }>((resolve, reject) => {
      const stream = createConnection(socketPath);
      const client = x11.createClient({ display: `:${display}`, stream, shm: false }, (error, info) => {
        if (error) reject(error);
        else resolve({ client, display: info });
      });
      client.on('error', (error: Error) => reject(error));
    });
    const xtest = await new Promise<XTestExtension>((resolve, reject) =>
      client.require('xtest', (error, extension) => (error ? reject(error) : resolve(extension))),
    );
    const screen = info.screen[0]!;
    const injector = new XTestInjector(client, xtest, screen.root, screen.pixel_width, screen.pixel_height);
    // Errors of requests on windows that vanished meanwhile (a focus on a window just destroyed) are harmless.
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    client.on('event', (event: { name: string; wid?: number; event?: number; overrideRedirect?: boolean }) => {
      if (event.name === 'MapNotify' && event.event === screen.root && !event.overrideRedirect && event.wid !== undefined) injector.focus(event.wid);
    });
    client.ChangeWindowAttributes(screen.root, { eventMask: x11.eventMask.SubstructureNotify! });
    injector.useArrowCursor();
    await injector.focusNewest();
    return injector;
  }

  /**
   * The root window's cursor becomes the usual arrow instead of the X server's cross: the stream
   * draws the pointer (the page locks the player's own), so a game that sets no cursor shows the
   * arrow, one with its own shows that, and one that hides it shows none.
   */
  private useArrowCursor(): void {
    const font = this.client.AllocID();
    const cursor = this.client.AllocID();
    this.client.OpenFont(font, 'cursor');
    const black = { R: 0, G: 0, B: 0 };
    const white = { R: 0xffff, G: 0xffff, B: 0xffff };
    this.client.CreateGlyphCursor(cursor, font, font, cursorFontLeftPtr, cursorFontLeftPtr + 1, black, white);
    this.client.ChangeWindowAttributes(this.root, { cursor });
    this.client.CloseFont(font);
  }

  /** Gives `window` the keyboard focus (reverting to the window under the pointer if it goes). */
  focus(window: number): void {
    if (this.closed) return;
    this.focused = window;
    this.client.SetInputFocus(window, revertToPointerRoot);
  }

  /** Focuses the newest viewable top-level window, if any (the top of the root's stacking order). */
  async focusNewest(): Promise<number | undefined> {
    const tree = await new Promise<{ children: number[] }>((resolve, reject) =>
      this.client.QueryTree(this.root, (error, value) => (error ? reject(error) : resolve(value))),
    );
    for (const window of [...tree.children].reverse()) {
      const attributes = await new Promise<{ mapState: number; overrideRedirect: number } | undefined>((resolve) =>
        this.client.GetWindowAttributes(window, (error, value) => resolve(error ? undefined : value)),
      );
      if (attributes && attributes.mapState === mapStateViewable && !attributes.overrideRedirect) {
        this.focus(window);
        return window;
      }
    }
    return undefined;
  }

  /** Injects one event; false when it is out of range (ignored, like any malformed message). */
  inject(event: InputEvent): boolean {
    if (this.closed) return false;
    const fake = this.xtest;
    switch (event.type) {
      case 'keyDown':
      case 'keyUp': {
        if (!Number.isInteger(event.key) || event.key < 1 || event.key > maxEvdevCode) return false;
        const keycode = x11KeycodeOf(event.key);
        if (event.type === 'keyDown') this.keysDown.add(keycode);
        else this.keysDown.delete(keycode);
        fake.FakeInput(event.type === 'keyDown' ? fake.KeyPress : fake.KeyRelease, keycode, 0, this.root, 0, 0);
        break;
      }
      case 'mouseMove': {
        const x = Math.max(0, Math.min(this.width - 1, event.x));
        const y = Math.max(0, Math.min(this.height - 1, event.y));
        // detail 0: absolute coordinates on the root window.
        fake.FakeInput(fake.MotionNotify, 0, 0, this.root, x, y);
        break;
      }
      case 'mouseDown':
      case 'mouseUp': {
        if (!Number.isInteger(event.button) || event.button < 1 || event.button > maxButton) return false;
        if (event.type === 'mouseDown') this.buttonsDown.add(event.button);
        else this.buttonsDown.delete(event.button);
        fake.FakeInput(event.type === 'mouseDown' ? fake.ButtonPress : fake.ButtonRelease, event.button, 0, this.root, 0, 0);
        break;
      }
      default:
        return false;
    }
    this.injected += 1;
    return true;
  }

  /** Releases whatever is held and closes the connection. */
  close(): void {
    if (this.closed) return;
    for (const keycode of this.keysDown) this.xtest.FakeInput(this.xtest.KeyRelease, keycode, 0, this.root, 0, 0);
    for (const button of this.buttonsDown) this.xtest.FakeInput(this.xtest.ButtonRelease, button, 0, this.root, 0, 0);
    this.closed = true;
    try {
      this.client.terminate();
    } catch {
      // Already gone with its display.
    }
  }
}
