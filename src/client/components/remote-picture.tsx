import { useState, type ImgHTMLAttributes, type ReactNode } from 'react';

/**
 * A picture from another site (a provider's avatar, an itch.io cover): when it cannot be loaded
 * (unreachable, removed, blocked), `fallback` shows in its place instead of the broken-image glyph.
 * A new address is tried again.
 */
export function RemotePicture({ src, fallback, ...img }: Omit<ImgHTMLAttributes<HTMLImageElement>, 'src' | 'onError'> & { src: string; fallback: ReactNode }) {
  const [failed, setFailed] = useState<string | undefined>();
  if (failed === src) return <>{fallback}</>;
  return <img {...img} src={src} onError={() => setFailed(src)} />;
}

/** The first letter of a name, shown where its picture is missing. */
export function initialOf(title: string): string {
  return [...title.trim()][0]?.toLocaleUpperCase() ?? '?';
}
