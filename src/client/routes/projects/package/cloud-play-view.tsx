import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { package_cloud_play_capture_hint } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_capture_hint.js';
import { package_cloud_play_captured } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_captured.js';
import { package_cloud_play_not_allowed } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_not_allowed.js';
import { package_cloud_play_start } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_start.js';
import { package_cloud_play_start_again } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_start_again.js';
import { package_cloud_play_stop } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_stop.js';
import { package_cloud_play_title } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_title.js';
import { package_cloud_play_video_label } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_video_label.js';
import { play_page_controls_label } from '../../../../shared/i18n/paraglide/messages/play_page_controls_label.js';
import { play_page_fullscreen } from '../../../../shared/i18n/paraglide/messages/play_page_fullscreen.js';
import { useMachineOnline } from '../../../cloud-play/availability.ts';
import { InputCapture } from '../../../cloud-play/input-capture.ts';
import { canFullscreen, canStart, canStop, isLive } from '../../../cloud-play/machine.ts';
import { rich, slot } from '../../../lib/i18n/rich.tsx';
import { detailText, statusText } from './cloud-play-texts.ts';
import { noMachineOnlineText } from './package-launchers.tsx';
import { useCloudPlay } from './use-cloud-play.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  package_cloud_play_capture_hint,
  package_cloud_play_captured,
  package_cloud_play_not_allowed,
  package_cloud_play_start,
  package_cloud_play_start_again,
  package_cloud_play_stop,
  package_cloud_play_title,
  package_cloud_play_video_label,
  play_page_controls_label,
  play_page_fullscreen,
};

/** 'Play {title} in the cloud', the package title isolated (it may start with a version number). */
function CloudPlayHeader({ title, back }: { title: string; back: ReactNode }) {
  return (
    <div className="play_header">
      <h1>{rich(m.package_cloud_play_title({ title: slot('title') }), { title: <bdi>{title}</bdi> })}</h1>
      {back}
    </div>
  );
}

/** A package the player cannot start here, with why (cloudPlayReasons). */
export function CloudPlayNotAllowed({ title, back, reasons }: { title: string; back: ReactNode; reasons: string[] }) {
  return (
    <div className="package_cloud_play">
      <CloudPlayHeader title={title} back={back} />
      <div className="notice cloud_play_not_allowed" role="status" data-testid="cloud-play-not-allowed">
        <p>{m.package_cloud_play_not_allowed()}</p>
        <ul>
          {reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/**
 * Spec §2 cloud-play page body (style class package_cloud_play): the game's video, and a footer with
 * the state's note and Start (while nothing runs), Fullscreen (while playing) and Stop (while a
 * session is live). A click on the video hands keyboard and mouse to the game (and turns its sound
 * on: the video starts muted so it may play before the player's click). While nothing runs and no
 * machine is online, Start is disabled and the footer says why; a running session is never affected.
 */
export function CloudPlayView({ title, back, target }: { title: string; back: ReactNode; target: { project: string; package: string } }) {
  const play = useCloudPlay(target);
  const { status, stream, settings } = play;
  const areaRef = useRef<HTMLDivElement>(null);
  const videoRef = useRef<HTMLVideoElement>(null);
  const captureRef = useRef<InputCapture | undefined>(undefined);
  const [captured, setCaptured] = useState(false);
  const [soundOn, setSoundOn] = useState(false);
  const noMachineId = useId();
  // Asked only while nothing runs: a session in progress does not depend on other machines.
  const machineOnline = useMachineOnline(!isLive(status));
  const noMachine = canStart(status) && machineOnline === false;
  // The capture reads the latest of these when an event comes.
  const latest = useRef({ playing: false, settings, send: play.send });
  latest.current = { playing: status.state === 'playing', settings, send: play.send };

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    const capture = new InputCapture({
      element: video,
      game: () => (latest.current.playing ? latest.current.settings : undefined),
      send: (message) => latest.current.send(message),
      onCaptureChange: (isCaptured) => {
        setCaptured(isCaptured);
        if (isCaptured) setSoundOn(true);
      },
    });
    captureRef.current = capture;
    return () => {
      capture.dispose();
      captureRef.current = undefined;
    };
  }, []);

  // Keyboard and mouse go back as soon as the game is not playing any more.
  useEffect(() => {
    if (status.state !== 'playing') captureRef.current?.release();
  }, [status.state]);

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    if (video.srcObject !== (stream ?? null)) video.srcObject = stream ?? null;
    if (stream) void video.play().catch(() => undefined);
  }, [stream]);

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    video.muted = !soundOn;
    if (soundOn && video.srcObject) void video.play().catch(() => undefined);
  }, [soundOn]);

  const fullscreen = () => {
    void areaRef.current?.requestFullscreen?.().catch(() => undefined);
  };
  const detail = detailText(status);
  const waiting = isLive(status) && status.state !== 'playing';
  const again = status.state === 'error' || (status.state === 'not_started' && status.ended !== undefined);

  return (
    <div className="package_cloud_play" data-state={status.state}>
      <CloudPlayHeader title={title} back={back} />
      <div ref={areaRef} className="cloud_play_area" data-captured={captured ? 'true' : undefined}>
        <video
          ref={videoRef}
          className="cloud_play_video"
          aria-label={m.package_cloud_play_video_label({ title })}
          autoPlay
          muted
          playsInline
          tabIndex={-1}
          data-testid="cloud-play-video"
        />
        {waiting ? (
          <div className="cloud_play_overlay" aria-hidden="true">
            <span className="spinner" />
          </div>
        ) : null}
      </div>
      <footer className="cloud_play_footer">
        <div className="cloud_play_notes">
          <p className="cloud_play_status" role="status" data-state={status.state} data-testid="cloud-play-status">
            {statusText(status.state)}
            {detail ? (
              <>
                {' '}
                <span className="cloud_play_detail" data-testid="cloud-play-detail">
                  {detail}
                </span>
              </>
            ) : null}
          </p>
          {noMachine ? (
            <p id={noMachineId} className="field_hint cloud_play_no_machine" data-testid="cloud-play-no-machine">
              {noMachineOnlineText()}
            </p>
          ) : null}
          {status.state === 'playing' ? <p className="field_hint cloud_play_hint">{captured ? rich(m.package_cloud_play_captured({ key: slot('key') }), { key: <kbd>Esc</kbd> }) : m.package_cloud_play_capture_hint()}</p> : null}
        </div>
        <div className="actions cloud_play_controls" role="group" aria-label={m.play_page_controls_label()}>
          {canStart(status) ? (
            <button type="button" className="button button_primary" onClick={play.start} disabled={noMachine} aria-describedby={noMachine ? noMachineId : undefined}>
              {again ? m.package_cloud_play_start_again() : m.package_cloud_play_start()}
            </button>
          ) : null}
          {canFullscreen(status) ? (
            <button type="button" className="button" onClick={fullscreen}>
              {m.play_page_fullscreen()}
            </button>
          ) : null}
          {canStop(status) ? (
            <button type="button" className="button" onClick={play.stop}>
              {m.package_cloud_play_stop()}
            </button>
          ) : null}
        </div>
      </footer>
    </div>
  );
}
