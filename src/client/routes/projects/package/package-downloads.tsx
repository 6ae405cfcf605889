import { useState } from 'react';
import { package_page_download_torrent } from '../../../../shared/i18n/paraglide/messages/package_page_download_torrent.js';
import { package_page_download_zip } from '../../../../shared/i18n/paraglide/messages/package_page_download_zip.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import type { TorrentFile } from '../../../../shared/schemas/package-downloads.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_download_torrent, package_page_download_zip };

/** Saves bytes the API gave as base64 (tRPC speaks JSON) under the given file name. */
function saveBase64File(file: TorrentFile, type = 'application/x-bittorrent'): void {
  const bytes = Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The click starts the download synchronously; the object URL may go once it has been read.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export type DownloadSource = {
  /** A fresh signed URL of the package's ZIP (the server answers it as an attachment). */
  zipUrl: () => Promise<string>;
  torrent: () => Promise<TorrentFile>;
};

/**
 * Download ZIP and Download torrent. URLs are fetched on click (they are signed and expire); the ZIP
 * is an attachment, so going to its URL downloads it without leaving the page.
 */
export function DownloadButtons({ source, className }: { source: DownloadSource; className?: string }) {
  const dialogs = useDialogs();
  const [busy, setBusy] = useState<'zip' | 'torrent' | null>(null);
  const run = async (kind: 'zip' | 'torrent') => {
    setBusy(kind);
    try {
      await dialogs.attempt(async () => {
        if (kind === 'zip') window.location.assign(await source.zipUrl());
        else saveBase64File(await source.torrent());
      });
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className={`actions ${className ?? ''}`.trim()}>
      <button type="button" className="button button_primary" disabled={busy !== null} aria-busy={busy === 'zip' || undefined} onClick={() => void run('zip')}>
        {m.package_page_download_zip()}
      </button>
      <button type="button" className="button" disabled={busy !== null} aria-busy={busy === 'torrent' || undefined} onClick={() => void run('torrent')}>
        {m.package_page_download_torrent()}
      </button>
    </div>
  );
}
