import { Link } from 'wouter';
import { store_by_owner } from '../../../shared/i18n/paraglide/messages/store_by_owner.js';
import { store_card_platforms } from '../../../shared/i18n/paraglide/messages/store_card_platforms.js';
import { store_card_updated } from '../../../shared/i18n/paraglide/messages/store_card_updated.js';
import { tagLabel } from '../../components/tag-labels.ts';
import { imageSources } from '../../lib/content-image-sources.ts';
import { useLanguage } from '../../lib/i18n/react.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { formatDate } from '../../../shared/format/date.ts';
import type { StoreIndexItem } from '../../../shared/schemas/project-media.ts';
import { storeHref } from '../projects/links.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_by_owner, store_card_platforms, store_card_updated };

/** The grid (store-index-page.css): four columns in the 72rem page, three, two, then one on a phone. */
const cardSizes = '(min-width: 72rem) 17rem, (min-width: 52rem) 31vw, (min-width: 34rem) 46vw, calc(100vw - 2rem)';

/** How many tints the placeholder has (store-index-page.css, data-tint). */
const tintCount = 8;

/** A stable tint for a project: its id hashed (FNV-1a), so a project keeps its colour everywhere. */
function tintOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % tintCount;
}

/** Up to two initials of a title (its first two words' first letters or digits, whole characters), upper case. */
function initialsOf(title: string): string {
  const words = title.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const letters = words.slice(0, 2).map((word) => Array.from(word)[0] ?? '');
  return letters.join('').toLocaleUpperCase() || '?';
}

/** What stands in for a missing cover: the title's initials on a tint of its own (decorative: the title is next to it). */
export function CoverPlaceholder({ id, title, className }: { id: string; title: string; className?: string }) {
  return (
    <div className={`store_placeholder ${className ?? ''}`.trim()} data-tint={tintOf(id)} aria-hidden="true">
      <span className="store_placeholder_initials">{initialsOf(title)}</span>
    </div>
  );
}

/**
 * One project of the store index: its cover (or the placeholder), the title as the link to its store
 * page (the whole card is clickable through it), the developer, the platforms and the last update.
 * The cover is decorative (the title names the card); `eager`: in the first row, so it loads at once.
 */
export function StoreCard({ item, eager }: { item: StoreIndexItem; eager: boolean }) {
  const { language } = useLanguage();
  const cover = item.cover;
  const sources = cover ? imageSources(cover) : undefined;
  const updated = formatDate(item.updated, language);
  return (
    <li className="store_card" data-project-id={item.id}>
      <div className="store_card_cover">
        {cover && sources ? (
          <img
            src={cover.url}
            srcSet={sources.srcset}
            sizes={sources.widthDescriptors ? cardSizes : undefined}
            width={sources.width}
            height={sources.height}
            alt=""
            loading={eager ? 'eager' : 'lazy'}
            decoding="async"
          />
        ) : (
          <CoverPlaceholder id={item.id} title={item.title} />
        )}
      </div>
      <div className="store_card_body">
        <h2 className="store_card_title">
          <Link href={storeHref(item.id)} className="store_card_link">
            <bdi>{item.title}</bdi>
          </Link>
        </h2>
        <p className="store_card_owner">{rich(m.store_by_owner({ owner: slot('owner') }), { owner: <bdi>{item.ownerTitle}</bdi> })}</p>
        {item.platforms.length > 0 ? (
          <ul className="store_card_platforms" aria-label={m.store_card_platforms()}>
            {item.platforms.map((platform) => (
              <li key={platform} className="badge" data-platform={platform}>
                {tagLabel(`os:${platform}`)}
              </li>
            ))}
          </ul>
        ) : null}
        <p className="store_card_updated">
          <time dateTime={item.updated}>{m.store_card_updated({ date: updated })}</time>
        </p>
      </div>
    </li>
  );
}
