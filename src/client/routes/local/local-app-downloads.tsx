import { useId, useState } from 'react';
import { dialog_copied } from '../../../shared/i18n/paraglide/messages/dialog_copied.js';
import { dialog_copy } from '../../../shared/i18n/paraglide/messages/dialog_copy.js';
import { dialog_copy_failed } from '../../../shared/i18n/paraglide/messages/dialog_copy_failed.js';
import { local_command_label } from '../../../shared/i18n/paraglide/messages/local_command_label.js';
import { local_downloads_none } from '../../../shared/i18n/paraglide/messages/local_downloads_none.js';
import { local_this_computer } from '../../../shared/i18n/paraglide/messages/local_this_computer.js';
import { Size } from '../../components/size.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { trpc } from '../../lib/trpc.ts';
import type { LocalAppPlatform, LocalAppDownloads } from '../../../shared/schemas/local-helper.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { dialog_copied, dialog_copy, dialog_copy_failed, local_command_label, local_downloads_none, local_this_computer };

type Download = LocalAppDownloads['downloads'][number];

/** Product names, the same in every language. */
const platformLabels: Record<LocalAppPlatform, string> = {
  'linux-x64': 'Linux x64',
  'linux-arm64': 'Linux ARM64',
  'darwin-x64': 'macOS Intel',
  'darwin-arm64': 'macOS Apple silicon',
  'windows-x64': 'Windows x64',
};

/** The platforms that may be this computer, best guess first (a browser does not tell Apple's chips apart). */
export function likelyPlatforms(userAgent: string): LocalAppPlatform[] {
  if (/Windows/i.test(userAgent)) return ['windows-x64'];
  if (/Mac OS X|Macintosh/i.test(userAgent)) return ['darwin-arm64', 'darwin-x64'];
  if (/Android|CrOS/i.test(userAgent)) return [];
  if (/Linux/i.test(userAgent)) return /aarch64|arm64/i.test(userAgent) ? ['linux-arm64'] : ['linux-x64', 'linux-arm64'];
  return [];
}

/**
 * A terminal one-liner that downloads the app, makes it runnable and starts it: into ~/.local/bin on
 * Linux and macOS, %LOCALAPPDATA%\Programs\Cartridge on Windows (PowerShell).
 */
export function installCommand(download: Pick<Download, 'platform' | 'url'>): string {
  if (download.platform === 'windows-x64') {
    const target = '"$env:LOCALAPPDATA\\Programs\\Cartridge\\cartridge-helper.exe"';
    return `New-Item -ItemType Directory -Force "$env:LOCALAPPDATA\\Programs\\Cartridge" | Out-Null; Invoke-WebRequest '${download.url}' -OutFile ${target}; & ${target}`;
  }
  return `curl -fL --create-dirs -o ~/.local/bin/cartridge-helper '${download.url}' && chmod +x ~/.local/bin/cartridge-helper && ~/.local/bin/cartridge-helper`;
}

/** A command to type, with a Copy button (and a label above it). */
export function CopyCommand({ command, label }: { command: string; label?: string }) {
  const labelId = useId();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <div className="copy_command">
      {label ? (
        <p id={labelId} className="copy_command_label">
          {label}
        </p>
      ) : null}
      <pre dir="ltr" aria-labelledby={label ? labelId : undefined} tabIndex={0}>
        <code>{command}</code>
      </pre>
      <button type="button" className="button button_quiet" onClick={() => void copy()}>
        {state === 'copied' ? m.dialog_copied() : m.dialog_copy()}
      </button>
      <span className="copy_command_status" role="status">
        {state === 'failed' ? m.dialog_copy_failed() : ''}
      </span>
    </div>
  );
}

/** GET /api/local-app: a link per platform offered, with its size and install command; this computer's first. */
export function LocalAppDownloadList() {
  const downloads = trpc.localApp.downloads.useQuery(undefined, { staleTime: 60_000 });
  if (downloads.error) return <ErrorState error={downloads.error} onRetry={() => void downloads.refetch()} />;
  if (!downloads.data) return <LoadingState />;
  if (downloads.data.downloads.length === 0) return <EmptyState icon="packages">{m.local_downloads_none()}</EmptyState>;
  const likely = likelyPlatforms(typeof navigator === 'undefined' ? '' : navigator.userAgent);
  const rank = (platform: LocalAppPlatform) => (likely.includes(platform) ? likely.indexOf(platform) : likely.length);
  const ordered = [...downloads.data.downloads].sort((a, b) => rank(a.platform) - rank(b.platform));
  // The best guess offered (Linux on x64 or ARM, a Mac of either chip: the first of them the server has).
  const guess = ordered.find((download) => likely.includes(download.platform))?.platform;
  return (
    <ul className="local_downloads">
      {ordered.map((download) => (
        <li key={download.platform} className="local_download" data-platform={download.platform}>
          <p className="local_download_link">
            <a href={download.url} download={download.fileName} className={guess === download.platform ? 'button button_primary' : 'button'}>
              {platformLabels[download.platform]}
            </a>{' '}
            <Size bytes={download.size} className="local_download_size" />
            {guess === download.platform ? <span className="badge">{m.local_this_computer()}</span> : null}
          </p>
          <CopyCommand command={installCommand(download)} label={m.local_command_label()} />
        </li>
      ))}
    </ul>
  );
}
