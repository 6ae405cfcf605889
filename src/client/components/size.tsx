import { formatSize } from '../../shared/format/size.ts';
import { useLanguage } from '../lib/i18n/index.ts';

/**
 * A size as text (spec §9), isolated left-to-right: in a right-to-left page '197 KiB' would otherwise
 * read 'KiB 197' (the number is weak, the Latin unit strong). Every size on screen goes through this.
 */
export function Size({ bytes, className, title }: { bytes: number; className?: string; title?: string }) {
  const { language } = useLanguage();
  return (
    <bdi dir="ltr" className={className} title={title} data-bytes={bytes}>
      {formatSize(bytes, language)}
    </bdi>
  );
}

