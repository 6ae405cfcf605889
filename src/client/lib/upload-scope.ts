import { useEffect, useRef } from 'react';

/**
 * What a component that uploads pictures holds while it is on screen: an AbortController for its
 * uploads (aborted when it goes) and the object URLs of its temporary previews (revoked when it goes).
 */
export function useUploadScope() {
  const controller = useRef<AbortController | null>(null);
  const previews = useRef(new Set<string>());
  useEffect(() => {
    const running = new AbortController();
    controller.current = running;
    const urls = previews.current;
    return () => {
      running.abort();
      for (const url of urls) URL.revokeObjectURL(url);
      urls.clear();
    };
  }, []);
  return { controller, previews };
}
