import { signingPurposes, type Keyring } from '../../../crypto/index.ts';
import { AppError, notFound } from '../../../errors.ts';

/** What /api/files serves of a package: its archive, its encoded index, or the ZIP of its files. */
const downloadKinds = ['archive', 'index', 'zip'] as const;
export type DownloadKind = (typeof downloadKinds)[number];

/**
 * A private package's torrent carries a signed web-seed URL; a BitTorrent client may take days to
 * finish (pauses, slow links), so it lives a week: long enough to finish, short enough that a leaked
 * .torrent stops working. Public packages use the unsigned public route instead (never expires,
 * checked against visibility on every request).
 */
export const torrentWebSeedSeconds = 7 * 24 * 60 * 60;

const signedMessageOf = (packageId: string, kind: DownloadKind, expires: number) => `${packageId}|${kind}|${expires}`;

/**
 * `{appUrl}/api/files/{packageId}/{kind}/{expires}/{signature}/{fileName}`: expires in Unix seconds,
 * signature = the download-url signer's base64url HMAC-SHA256 of "packageId|kind|expires". The file name
 * is only for clients that name the file after the URL; the reply's Content-Disposition is authoritative.
 */
export function signedFileUrl(appUrl: string, keys: Keyring, packageId: string, kind: DownloadKind, fileName: string, lifetimeSeconds: number, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + lifetimeSeconds;
  const signature = keys.signer(signingPurposes.downloadUrl).sign(signedMessageOf(packageId, kind, expires));
  return `${appUrl.replace(/\/+$/, '')}/api/files/${packageId}/${kind}/${expires}/${signature}/${encodeURIComponent(fileName)}`;
}

/** The web seed of a public package: no signature; /api/files checks that visitors may see it. */
export function publicZipUrl(appUrl: string, packageId: string, fileName: string): string {
  return `${appUrl.replace(/\/+$/, '')}/api/files/${packageId}/zip/public/${encodeURIComponent(fileName)}`;
}

export function parseDownloadKind(kind: string): DownloadKind {
  if (!(downloadKinds as readonly string[]).includes(kind)) throw notFound('file');
  return kind as DownloadKind;
}

/**
 * A forged or altered URL is not_found (it reveals nothing); an authentic one past its time is
 * wrong_auth, like an expired token, so a client knows to ask for a fresh URL.
 */
export function verifyFileSignature(keys: Keyring, packageId: string, kind: DownloadKind, expiresText: string, signature: string, now = Date.now()): void {
  if (!/^\d{1,12}$/.test(expiresText)) throw notFound('file');
  const expires = Number(expiresText);
  if (!keys.signer(signingPurposes.downloadUrl).verify(signedMessageOf(packageId, kind, expires), signature)) throw notFound('file');
  if (expires * 1000 <= now) throw new AppError('wrong_auth', 'This download link has expired: ask for a new one');
}
