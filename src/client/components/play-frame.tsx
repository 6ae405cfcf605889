import { useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import { play_page_controls_label } from '../../shared/i18n/paraglide/messages/play_page_controls_label.js';
import { play_page_frame_title } from '../../shared/i18n/paraglide/messages/play_page_frame_title.js';
import { play_page_fullscreen } from '../../shared/i18n/paraglide/messages/play_page_fullscreen.js';
import { play_page_isolated } from '../../shared/i18n/paraglide/messages/play_page_isolated.js';
import { play_page_reset } from '../../shared/i18n/paraglide/messages/play_page_reset.js';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { play_page_controls_label, play_page_frame_title, play_page_fullscreen, play_page_isolated, play_page_reset };

/**
 * What the game may do. No allow-same-origin: even though the play origin is already another origin,
 * the game then runs in an opaque origin of its own, so it can reach no storage or cookies at all.
 */
export const PLAY_SANDBOX = 'allow-scripts allow-pointer-lock allow-popups allow-forms allow-modals allow-downloads';
export const PLAY_ALLOW = 'fullscreen; gamepad; autoplay';

/**
 * Where the frame starts on the page (px from the document's top), so it can take the rest of the
 * viewport's height: a game cannot tell its size across origins, and a fixed ratio clipped games made
 * for another one. Updated when the window changes size (the header may wrap).
 */
function useTopOffset(element: { current: HTMLElement | null }): number | undefined {
  const [top, setTop] = useState<number>();
  useLayoutEffect(() => {
    const measure = () => {
      const box = element.current?.getBoundingClientRect();
      if (box) setTop(Math.round(box.top + window.scrollY));
    };
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, [element]);
  return top;
}

/**
 * A game from the play origin in a sandboxed frame, with Reset (a new frame element, so the game
 * starts over from nothing) and Fullscreen (of the frame's container, so the controls' page stays put).
 * `header` (the page's heading) shares one row with the controls, leaving the game the most height.
 */
export function PlayFrame({ url, title, onReset, header }: { url: string; title: string; onReset?: () => void; header?: ReactNode }) {
  const containerRef = useRef<HTMLDivElement>(null);
  const [run, setRun] = useState(0);
  const top = useTopOffset(containerRef);
  const fullscreen = () => {
    const container = containerRef.current;
    if (!container) return;
    void container.requestFullscreen?.().catch(() => undefined);
  };
  return (
    <div className="play_frame">
      <div className="play_bar">
        {header}
        <div className="actions play_controls" role="group" aria-label={m.play_page_controls_label()}>
          <button
            type="button"
            className="button"
            onClick={() => {
              onReset?.();
              setRun((count) => count + 1);
            }}
          >
            {m.play_page_reset()}
          </button>
          <button type="button" className="button" onClick={fullscreen}>
            {m.play_page_fullscreen()}
          </button>
        </div>
      </div>
      <div ref={containerRef} className="play_frame_container" style={top === undefined ? undefined : ({ '--play-frame-top': `${top}px` } as CSSProperties)}>
        <iframe key={run} className="play_frame_iframe" src={url} title={m.play_page_frame_title({ title })} sandbox={PLAY_SANDBOX} allow={PLAY_ALLOW} data-run={run} />
      </div>
      <p className="field_hint play_frame_note">{m.play_page_isolated()}</p>
    </div>
  );
}
